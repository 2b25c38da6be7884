"""LSTM, GRU, RNN (ONNX recurrent operators) → the time loop unrolled into FullyConnected, Crop, Activation,
Eltwise, Gather, Concatenation, Reshape and Permute.

Semantics are the ONNX operator spec's (onnx/onnx docs/Operators.md; ``onnx/reference/ops/op_lstm.py``,
``op_gru.py``, ``op_rnn.py``) as onnxruntime implements them (clip, input_forget, sequence_lens, activation
parameters). The unrolling is what OpenVINO does with LSTMSequence/GRUSequence/RNNSequence (a TensorIterator
over the cell): X·Wᵀ + Wb + Rb for every time step at once, as ONE FullyConnected over (seq·batch, input), then per
step a Crop of the step's rows and the cell of ``recurrent_cells.py``; Y is one Concatenation at the end. The
sequence length is static in every import (a dynamic one is specialized per shape by ``DynamicTopology``), so the
unrolled graph is static too; it has O(T) primitives.

W, R, B, P and sequence_lens must be known at import (initializers, folded constants, or graph inputs that a
dynamic import binds per value: ``NotConstantError``); X, initial_h and initial_c may be computed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import UnsupportedError
from ...primitives.concatenation import Concatenation
from ...primitives.crop import Crop
from ...primitives.eltwise import EltwiseMode
from ...primitives.fully_connected import FullyConnected
from ...primitives.gather import Gather
from ...primitives.permute import Permute
from ...primitives.reshape import Reshape
from ..onnx_context import NotConstantError
from . import converter
from .nn_common import const_data, optional_input, since_version, where
from .recurrent_cells import Steps, parse_activations

# op -> (gates, default activations of one direction)
_CELLS = {"LSTM": (4, ["Sigmoid", "Tanh", "Tanh"]), "GRU": (3, ["Sigmoid", "Tanh"]), "RNN": (1, ["Tanh"])}


def _const(ctx: Any, node: Any, index: int, what: str) -> np.ndarray | None:
    """Input ``index`` as a float32 constant, None when omitted. Raises NotConstantError naming the node."""
    name = optional_input(node, index)
    if name is None:
        return None
    if not ctx.is_const(name):
        e = NotConstantError(name)
        e.args = (f"{where(node)}: {what} '{name}' must be a constant (an initializer or computable at import)",)
        raise e
    return np.asarray(ctx.const(name), dtype=np.float32)


def _state(ctx: Any, st: Steps, node: Any, index: int, d: int, layout: int, batch: int) -> str:
    """Initial state of direction ``d`` as (batch, hidden): ONNX (num_directions, batch, hidden), or (batch,
    num_directions, hidden) for layout 1; zeros when the input is omitted."""
    name, n = optional_input(node, index), st.hidden
    if name is None:
        return const_data(ctx, f"{st.base}_zero", np.zeros((batch, n), np.float32))
    if ctx.is_const(name):
        v = np.asarray(ctx.const(name), np.float32)
        return const_data(ctx, f"{st.base}_h0", v[:, d] if layout else v[d])
    nd = ctx.shape(name)[1 if layout else 0]
    if nd == 1:
        return ctx.add(Reshape(ctx.fresh(f"{st.base}_h0"), ctx.ref(name), shape=(batch, n)))
    box = (batch, 1, n) if layout else (1, batch, n)
    offs = (0, d, 0) if layout else (d, 0, 0)
    c = ctx.add(Crop(ctx.fresh(f"{st.base}_h0"), ctx.ref(name), shape=box, offsets=offs))
    return ctx.add(Reshape(ctx.fresh(f"{st.base}_h0"), c, shape=(batch, n)))


def _sequence_lens(ctx: Any, node: Any, seq: int, batch: int) -> np.ndarray | None:
    """The constant sequence_lens (batch,) as ints, None when omitted or all equal to ``seq``."""
    name = optional_input(node, 4)
    if name is None:
        return None
    if not ctx.is_const(name):
        e = NotConstantError(name)
        e.args = (f"{where(node)}: sequence_lens '{name}' must be a constant (or a graph input, bound per value)",)
        raise e
    lens = np.asarray(ctx.const(name)).astype(np.int64).reshape(-1)
    if lens.shape != (batch,) or (lens < 0).any() or (lens > seq).any():
        raise UnsupportedError(f"{where(node)}: sequence_lens {lens.tolist()} must hold {batch} values in [0, {seq}]")
    return None if (lens == seq).all() else lens


def _reversal(lens: np.ndarray, seq: int, batch: int) -> np.ndarray:
    """Row order (seq·batch rows, time-major) that reverses each sequence within its own length (ONNX's reverse
    direction with sequence_lens): row (t, b) ← (len_b - 1 - t, b) for t < len_b; padded rows stay. An
    involution, so it also maps the outputs back."""
    idx = np.arange(seq * batch).reshape(seq, batch)
    for b, n in enumerate(lens):
        idx[:n, b] = idx[:n, b][::-1]
    return idx.reshape(-1).astype(np.int32)


def _direction(ctx: Any, node: Any, st: Steps, x2d: str, d: int, reverse: bool, p: dict[str, Any]) -> tuple:
    """Unroll one direction. Returns (Y rows (seq·batch, hidden) in time order or None, H_T, C_T or None)."""
    op, seq, batch, n, g = node.op_type, p["seq"], p["batch"], st.hidden, p["gates"]
    w, r, bias = p["W"][d], p["R"][d], p["B"][d]
    wb, rb = bias[:g * n], bias[g * n:]
    fold = wb + rb
    if op == "GRU" and p["lbr"]:
        fold[2 * n:] = wb[2 * n:]  # Rbh stays inside the reset product
    xw = ctx.add(FullyConnected(ctx.fresh(f"{st.base}_xw"), x2d, weights=const_data(ctx, f"{st.base}_W", w),
                                bias=const_data(ctx, f"{st.base}_B", fold)))
    lens = p["lens"]
    order = None
    if reverse and lens is not None:
        order = const_data(ctx, f"{st.base}_rev", _reversal(lens, seq, batch))
        xw = ctx.add(Gather(ctx.fresh(f"{st.base}_xw_rev"), xw, order, axis=0))
    h = _state(ctx, st, node, 5, d, p["layout"], batch)
    c: str | None = _state(ctx, st, node, 6, d, p["layout"], batch) if op == "LSTM" else None
    acts = p["acts"][d]
    ys = []
    for t in range(seq):
        s = seq - 1 - t if reverse and order is None else t
        xw_t = st.rows(xw, s * batch, batch)
        c_new: str | None = None
        if c is not None:
            h_new, c_new = st.lstm(xw_t, h, c, r, None if p["P"] is None else p["P"][d], acts, p["input_forget"])
        elif op == "GRU":
            h_new = st.gru(xw_t, h, r, rb[2 * n:], acts, p["lbr"])
        else:
            h_new = st.rnn(xw_t, h, r, acts)
        if lens is not None and t >= lens.min():  # steps past a sequence's end keep the state, give Y = 0
            mask = const_data(ctx, f"{st.base}_mask", (t < lens).astype(np.float32).reshape(batch, 1))
            h = st.masked(h_new, h, mask)
            if c is not None and c_new is not None:
                c = st.masked(c_new, c, mask)
            ys.append(st.elt(EltwiseMode.prod, mask, h_new) if p["want_y"] else "")
        else:
            h, c = h_new, c_new
            ys.append(h)
    y = None
    if p["want_y"]:
        if reverse and order is None:
            ys.reverse()
        y = ys[0] if seq == 1 else ctx.add(Concatenation(ctx.fresh(f"{st.base}_y"), ys, axis=0))
        if order is not None:
            y = ctx.add(Gather(ctx.fresh(f"{st.base}_y_rev"), y, order, axis=0))
    return y, h, c


def _outputs(ctx: Any, node: Any, results: list[tuple], p: dict[str, Any]) -> None:
    """Y (seq, num_directions, batch, hidden) / layout 1 (batch, seq, num_directions, hidden); Y_h, Y_c
    (num_directions, batch, hidden) / layout 1 (batch, num_directions, hidden)."""
    seq, batch, n, nd, layout = p["seq"], p["batch"], p["hidden"], len(results), p["layout"]
    outs = list(node.output) + [""] * 3
    if outs[0]:
        views = [ctx.add(Reshape(ctx.fresh(f"{outs[0]}_view"), y, shape=(seq, batch * n))) for y, _, _ in results]
        y = views[0] if nd == 1 else ctx.add(Concatenation(ctx.fresh(f"{outs[0]}_cat"), views, axis=1))
        if layout:
            y4 = ctx.add(Reshape(ctx.fresh(f"{outs[0]}_4d"), y, shape=(seq, nd, batch, n)))
            ctx.add(Permute(outs[0], y4, order=(2, 0, 1, 3)))
        else:
            ctx.add(Reshape(outs[0], y, shape=(seq, nd, batch, n)))
    for k, name in ((1, outs[1]), (2, outs[2])):
        if not name or (k == 2 and node.op_type != "LSTM"):
            continue
        parts = [res[k] for res in results]
        cat = parts[0] if nd == 1 else ctx.add(Concatenation(ctx.fresh(f"{name}_cat"), parts, axis=1 if layout else 0))
        ctx.add(Reshape(name, cat, shape=(batch, nd, n) if layout else (nd, batch, n)))


def recurrent(ctx: Any, node: Any) -> None:
    """LSTM / GRU / RNN with X (seq, batch, input), or (batch, seq, input) for ``layout`` 1 (opset 14+); W
    (num_directions, gates·hidden, input), R (num_directions, gates·hidden, hidden), B (num_directions,
    2·gates·hidden), sequence_lens (batch,), initial_h / initial_c (num_directions, batch, hidden) or (batch,
    num_directions, hidden), LSTM's P (num_directions, 3·hidden). Directions forward, reverse, bidirectional; clip;
    activations with alpha/beta; GRU linear_before_reset; LSTM input_forget. Outputs Y, Y_h, Y_c as the spec
    shapes them; omitted ones are not computed.

    Raises NotConstantError (an UnsupportedError) naming the node when W, R, B, P or sequence_lens are computed
    at run time, UnsupportedError for an activation the engine lacks, a bad direction or inconsistent shapes.
    """
    op = node.op_type
    gates, defaults = _CELLS[op]
    a = ctx.attrs(node)
    direction = a.get("direction", "forward")
    if direction not in ("forward", "reverse", "bidirectional"):
        raise UnsupportedError(f"{where(node)}: direction {direction!r} is not forward, reverse or bidirectional")
    nd = 2 if direction == "bidirectional" else 1
    layout = int(a.get("layout", 0)) if since_version(ctx, node) >= 14 else 0
    w, r = _const(ctx, node, 1, "W"), _const(ctx, node, 2, "R")
    assert w is not None and r is not None
    xs = ctx.shape(node.input[0])
    if len(xs) != 3:
        raise UnsupportedError(f"{where(node)}: X must be 3-D, got {xs}")
    seq, batch, inp = (xs[1], xs[0], xs[2]) if layout else xs
    n = int(a.get("hidden_size", r.shape[-1]))
    if w.shape != (nd, gates * n, inp) or r.shape != (nd, gates * n, n):
        raise UnsupportedError(f"{where(node)}: W {w.shape} / R {r.shape}: expected ({nd}, {gates * n}, {inp}) / "
                               f"({nd}, {gates * n}, {n}) for direction {direction}, hidden_size {n}")
    b = _const(ctx, node, 3, "B")
    b = np.zeros((nd, 2 * gates * n), np.float32) if b is None else b.reshape(nd, 2 * gates * n)
    peep = _const(ctx, node, 7, "P") if op == "LSTM" else None
    acts = parse_activations(node, a, defaults, nd)
    k = len(defaults)
    clip = a.get("clip")
    p: dict[str, Any] = {
        "seq": seq, "batch": batch, "hidden": n, "gates": gates, "layout": layout, "W": w, "R": r, "B": b,
        "P": None if peep is None else peep.reshape(nd, 3 * n), "lbr": bool(a.get("linear_before_reset", 0)),
        "input_forget": bool(a.get("input_forget", 0)), "lens": _sequence_lens(ctx, node, seq, batch),
        "acts": [acts[d * k:(d + 1) * k] for d in range(nd)], "want_y": bool(node.output and node.output[0]),
    }
    base = node.output[0] or next((o for o in node.output if o), op)
    x = ctx.ref(node.input[0])
    if layout:  # (batch, seq, input) -> (seq, batch, input)
        x = ctx.add(Permute(ctx.fresh(f"{base}_x"), x, order=(1, 0, 2)))
    x2d = ctx.add(Reshape(ctx.fresh(f"{base}_x2d"), x, shape=(seq * batch, inp)))
    results = []
    for d in range(nd):
        st = Steps(ctx, f"{base}_d{d}", n, None if clip is None else float(clip))
        results.append(_direction(ctx, node, st, x2d, d, direction == "reverse" or d == 1, p))
    _outputs(ctx, node, results, p)


@converter("LSTM", versions=(7, 14, 22))
def lstm(ctx: Any, node: Any) -> None:
    """LSTM (gates i, o, f, c; default activations Sigmoid, Tanh, Tanh; peepholes P; input_forget): see
    :func:`recurrent`. Version 22 only adds bfloat16 types."""
    recurrent(ctx, node)


@converter("GRU", versions=(7, 14, 22))
def gru(ctx: Any, node: Any) -> None:
    """GRU (gates z, r, h; default activations Sigmoid, Tanh; linear_before_reset 0 or 1): see
    :func:`recurrent`. Version 22 only adds bfloat16 types."""
    recurrent(ctx, node)


@converter("RNN", versions=(7, 14, 22))
def rnn(ctx: Any, node: Any) -> None:
    """RNN (Ht = f(Xt·Wᵀ + Ht-1·Rᵀ + Wb + Rb), default activation Tanh): see :func:`recurrent`. Version 22 only
    adds bfloat16 types."""
    recurrent(ctx, node)

