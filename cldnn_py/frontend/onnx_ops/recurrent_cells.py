"""One time step of the ONNX recurrent cells (LSTM, GRU, RNN) as existing primitives; ``recurrent.py`` unrolls
the time loop with them. Registers no converter.

Every tensor here is 2-D, (batch, width), in bfyx. A step receives ``xw``: its slice of X·Wᵀ + Wb + Rb, computed
for all time steps at once by one FullyConnected before the loop (the gate order of ONNX: LSTM i, o, f, c; GRU
z, r, h; RNN i), and the previous state; it adds one FullyConnected of H_{t-1} with R (no bias), gate Crops,
Activations and Eltwise products and sums. This is the decomposition OpenVINO applies to LSTMSequence /
GRUSequence / RNNSequence (a TensorIterator over the cell, the cell as MatMul, Split, activations, Multiply, Add),
unrolled at import because T is static in every specialization.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import UnsupportedError
from ...primitives.activation import Activation
from ...primitives.crop import Crop
from ...primitives.eltwise import Eltwise, EltwiseMode
from ...primitives.fully_connected import FullyConnected
from .nn_common import const_data, where

# ONNX activation name (lower case) -> (uses alpha, uses beta, default alpha, default beta); onnxruntime's table
ACTIVATIONS: dict[str, tuple[bool, bool, float, float]] = {
    "sigmoid": (False, False, 0.0, 0.0), "tanh": (False, False, 0.0, 0.0), "relu": (False, False, 0.0, 0.0),
    "affine": (True, True, 1.0, 0.0), "leakyrelu": (True, False, 0.01, 0.0), "scaledtanh": (True, True, 1.0, 1.0),
    "hardsigmoid": (True, True, 0.2, 0.5), "elu": (True, False, 1.0, 0.0), "softsign": (False, False, 0.0, 0.0),
    "softplus": (False, False, 0.0, 0.0),
}


@dataclass(frozen=True)
class Act:
    """An ONNX recurrent activation function: ``name`` (lower case, a key of :data:`ACTIVATIONS`), alpha, beta."""

    name: str
    alpha: float = 0.0
    beta: float = 0.0


def parse_activations(node: Any, attrs: dict[str, Any], defaults: list[str], num_directions: int) -> list[Act]:
    """The ``activations`` attribute (one list of ``len(defaults)`` functions per direction, the forward one
    first) with ``activation_alpha`` / ``activation_beta`` given out in order to the functions that take them,
    as onnxruntime does. Raises UnsupportedError naming the node and any function the engine lacks
    (ThresholdedRelu)."""
    names = [n.decode() if isinstance(n, bytes) else str(n) for n in attrs.get("activations", [])] or defaults
    if len(names) == len(defaults) and num_directions == 2:
        names = names * 2
    if len(names) != len(defaults) * num_directions:
        raise UnsupportedError(f"{where(node)}: {len(names)} activations {names}, expected "
                               f"{len(defaults) * num_directions} ({len(defaults)} per direction)")
    alphas = [float(a) for a in attrs.get("activation_alpha", [])]
    betas = [float(b) for b in attrs.get("activation_beta", [])]
    out = []
    for n in names:
        key = n.lower()
        if key not in ACTIVATIONS:
            raise UnsupportedError(f"{where(node)}: activation function {n!r} is not supported (supported: "
                                   f"{', '.join(sorted(ACTIVATIONS))})")
        use_a, use_b, da, db = ACTIVATIONS[key]
        a = alphas.pop(0) if use_a and alphas else da
        b = betas.pop(0) if use_b and betas else db
        out.append(Act(key, a, b))
    return out


class Steps:
    """Adds the primitives of unrolled time steps to ``ctx``; every id is fresh, derived from ``base``."""

    def __init__(self, ctx: Any, base: str, hidden: int, clip: float | None) -> None:
        self.ctx, self.base, self.hidden, self.clip = ctx, base, hidden, clip

    def _id(self, what: str) -> str:
        return self.ctx.fresh(f"{self.base}_{what}")

    def crop(self, src: str, offset: int, width: int) -> str:
        """Columns [offset, offset + width) of a 2-D tensor (the tensor itself when that is all of it)."""
        rows, cols = self.ctx.layouts[src].shape
        if offset == 0 and width == cols:
            return src
        return self.ctx.add(Crop(self._id("gate"), src, shape=(rows, width), offsets=(0, offset)))

    def rows(self, src: str, start: int, count: int) -> str:
        """Rows [start, start + count) of a 2-D tensor (one time step of X·Wᵀ)."""
        rows, cols = self.ctx.layouts[src].shape
        if start == 0 and count == rows:
            return src
        return self.ctx.add(Crop(self._id("xw"), src, shape=(count, cols), offsets=(start, 0)))

    def elt(self, mode: EltwiseMode, *inputs: str) -> str:
        """Eltwise ``mode`` of the inputs (numpy broadcasting)."""
        return self.ctx.add(Eltwise(self._id(mode.value), list(inputs), mode=mode))

    def fc(self, src: str, weights: np.ndarray, bias: np.ndarray | None = None) -> str:
        """src·weightsᵀ (+ bias): weights (M, K) constant."""
        w = const_data(self.ctx, f"{self.base}_R", np.ascontiguousarray(weights, dtype=np.float32))
        b = None if bias is None else const_data(self.ctx, f"{self.base}_Rb", bias.astype(np.float32))
        return self.ctx.add(FullyConnected(self._id("hr"), src, weights=w, bias=b))

    def activate(self, src: str, act: Act, clip: bool = True) -> str:
        """``act``(clip(src)): the ONNX clip (when set) bounds the activation's input."""
        cur = src
        if clip and self.clip is not None:
            cur = self._act(cur, "clamp", -self.clip, self.clip)
        name, a, b = act.name, act.alpha, act.beta
        simple = {"sigmoid": ("logistic", None, None), "tanh": ("tanh", None, None), "relu": ("relu", None, None),
                  "affine": ("linear", a, b), "leakyrelu": ("relu_negative_slope", a, None),
                  "hardsigmoid": ("hard_sigmoid", a, b), "elu": ("elu", a, None), "softplus": ("softplus", None, None)}
        if name in simple:
            func, pa, pb = simple[name]
            return self._act(cur, func, pa, pb)
        if name == "scaledtanh":  # alpha·tanh(beta·x)
            return self._act(self._act(self._act(cur, "linear", b, 0.0), "tanh"), "linear", a, 0.0)
        # softsign: x / (1 + |x|)
        den = self._act(self._act(self._act(cur, "abs"), "linear", 1.0, 1.0), "reciprocal")
        return self.elt(EltwiseMode.prod, cur, den)

    def _act(self, src: str, func: str, a: float | None = None, b: float | None = None) -> str:
        return self.ctx.add(Activation(self._id(func), src, func, a=a, b=b))

    def gates(self, xw: str, h_prev: str, r: np.ndarray) -> str:
        """xw + H_{t-1}·Rᵀ: the pre-activations of every gate."""
        return self.elt(EltwiseMode.sum, xw, self.fc(h_prev, r))

    def lstm(self, xw: str, h_prev: str, c_prev: str, r: np.ndarray, p: np.ndarray | None, acts: list[Act],
             input_forget: bool) -> tuple[str, str]:
        """One LSTM step (ONNX LSTM equations); returns (H_t, C_t). ``p`` (3H,) peepholes i, o, f or None;
        ``input_forget`` couples the gates: f = 1 - i (as onnxruntime)."""
        f, g, h = acts
        n = self.hidden
        pre = self.gates(xw, h_prev, r)
        peep = None if p is None else [const_data(self.ctx, f"{self.base}_P", p[k * n:(k + 1) * n]) for k in range(3)]

        def gate(k: int, state: str | None, pk: int) -> str:
            x = self.crop(pre, k * n, n)
            if peep is not None and state is not None:
                x = self.elt(EltwiseMode.sum, x, self.elt(EltwiseMode.prod, state, peep[pk]))
            return x

        if peep is None:  # i, o, f are contiguous and share f: one activation for the three
            sig = self.activate(self.crop(pre, 0, (2 if input_forget else 3) * n), f)
            i, o = self.crop(sig, 0, n), self.crop(sig, n, n)
            ft = self._act(i, "linear", -1.0, 1.0) if input_forget else self.crop(sig, 2 * n, n)
        else:
            i = self.activate(gate(0, c_prev, 0), f)
            ft = self._act(i, "linear", -1.0, 1.0) if input_forget else self.activate(gate(2, c_prev, 2), f)
        c_hat = self.activate(gate(3, None, 0), g)
        c = self.elt(EltwiseMode.sum, self.elt(EltwiseMode.prod, ft, c_prev), self.elt(EltwiseMode.prod, i, c_hat))
        if peep is not None:  # the output gate sees the new cell state
            o = self.activate(gate(1, c, 1), f)
        return self.elt(EltwiseMode.prod, o, self.activate(c, h, clip=False)), c

    def gru(self, xw: str, h_prev: str, r: np.ndarray, rbh: np.ndarray | None, acts: list[Act],
            linear_before_reset: bool) -> str:
        """One GRU step (ONNX GRU equations); returns H_t. ``xw`` holds Wbz + Rbz, Wbr + Rbr and Wbh (+ Rbh when
        ``linear_before_reset`` is 0); with it 1, ``rbh`` is the R bias of the h gate, inside the reset product."""
        f, g = acts
        n = self.hidden
        if linear_before_reset:  # one FC for all three gates: h = g(xw_h + r ⊙ (H·Rhᵀ + Rbh))
            bias = np.concatenate([np.zeros(2 * n, np.float32), rbh if rbh is not None else np.zeros(n, np.float32)])
            hr = self.fc(h_prev, r, bias)
            zr = self.activate(self.elt(EltwiseMode.sum, self.crop(xw, 0, 2 * n), self.crop(hr, 0, 2 * n)), f)
            z, rt = self.crop(zr, 0, n), self.crop(zr, n, n)
            hh = self.elt(EltwiseMode.prod, rt, self.crop(hr, 2 * n, n))
        else:  # h = g(xw_h + (r ⊙ H)·Rhᵀ)
            zr = self.activate(self.gates(self.crop(xw, 0, 2 * n), h_prev, r[:2 * n]), f)
            z, rt = self.crop(zr, 0, n), self.crop(zr, n, n)
            hh = self.fc(self.elt(EltwiseMode.prod, rt, h_prev), r[2 * n:])
        ht = self.activate(self.elt(EltwiseMode.sum, self.crop(xw, 2 * n, n), hh), g)
        # H = (1 - z) ⊙ h + z ⊙ H_{t-1} = h + z ⊙ (H_{t-1} - h)
        return self.elt(EltwiseMode.sum, ht, self.elt(EltwiseMode.prod, z, self.elt(EltwiseMode.sub, h_prev, ht)))

    def rnn(self, xw: str, h_prev: str, r: np.ndarray, acts: list[Act]) -> str:
        """One RNN step: H_t = f(xw + H_{t-1}·Rᵀ)."""
        return self.activate(self.gates(xw, h_prev, r), acts[0])

    def masked(self, new: str, prev: str, mask: str) -> str:
        """prev + mask ⊙ (new - prev): the new state where the step is inside the sequence (mask 1), else the
        previous one (mask 0); ``mask`` is (batch, 1)."""
        return self.elt(EltwiseMode.sum, prev, self.elt(EltwiseMode.prod, mask, self.elt(EltwiseMode.sub, new, prev)))
