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
from .recurrent_fused import fusable, fusable_gru, fused_direction, fused_gru_direction

# op -> (gates, default activations of one direction)
_CELLS = {"LSTM": (4, ["Sigmoid", "Tanh", "Tanh"]), "GRU": (3, ["Sigmoid", "Tanh"]), "RNN": (1, ["Tanh"])}


def _raw_const(ctx: Any, node: Any, index: int, what: str) -> np.ndarray | None:
    """Input ``index`` as a constant in its own type, None when omitted. Raises NotConstantError naming the node
    (a graph input is then bound per value by the dynamic import)."""
    name = optional_input(node, index)
    if name is None:
        return None
    if not ctx.is_const(name):
        e = NotConstantError(name)
        e.args = (f"{where(node)}: {what} '{name}' must be a constant (an initializer or computable at import)",)
        raise e
    return np.asarray(ctx.const(name))


def _const(ctx: Any, node: Any, index: int, what: str) -> np.ndarray | None:
    """Input ``index`` as a float32 constant, None when omitted (see :func:`_raw_const`)."""
    v = _raw_const(ctx, node, index, what)
    return None if v is None else v.astype(np.float32)


def _state(ctx: Any, base: str, node: Any, index: int, dirs: list[int], layout: int, batch: int, n: int) -> str:
    """Initial state of directions ``dirs`` side by side as (batch, len(dirs)·hidden): ONNX (num_directions, batch,
    hidden), or (batch, num_directions, hidden) for layout 1; zeros when the input is omitted."""
    name = optional_input(node, index)
    if name is None:
        return const_data(ctx, f"{base}_zero", np.zeros((batch, n * len(dirs)), np.float32))
    if ctx.is_const(name):
        v = np.asarray(ctx.const(name), np.float32)
        return const_data(ctx, f"{base}_h0", np.concatenate([v[:, d] if layout else v[d] for d in dirs], axis=1))
    if len(dirs) > 1:
        parts = [_state(ctx, base, node, index, [d], layout, batch, n) for d in dirs]
        return ctx.add(Concatenation(ctx.fresh(f"{base}_h0"), parts, axis=1))
    d = dirs[0]
    if ctx.shape(name)[1 if layout else 0] == 1:
        return ctx.add(Reshape(ctx.fresh(f"{base}_h0"), ctx.ref(name), shape=(batch, n)))
    box = (batch, 1, n) if layout else (1, batch, n)
    offs = (0, d, 0) if layout else (d, 0, 0)
    c = ctx.add(Crop(ctx.fresh(f"{base}_h0"), ctx.ref(name), shape=box, offsets=offs))
    return ctx.add(Reshape(ctx.fresh(f"{base}_h0"), c, shape=(batch, n)))


def _sequence_lens(ctx: Any, node: Any, seq: int, batch: int) -> np.ndarray | None:
    """The constant sequence_lens (batch,) as ints, None when omitted or all equal to ``seq``."""
    raw = _raw_const(ctx, node, 4, "sequence_lens")
    if raw is None:
        return None
    lens = raw.astype(np.int64).reshape(-1)
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


def _fold(node: Any, p: dict[str, Any], d: int) -> tuple[np.ndarray, np.ndarray]:
    """(the bias folded into X·Wᵀ, Rbh) of direction d: Wb + Rb, except GRU's Rbh with linear_before_reset,
    which stays out (it is applied inside the reset product)."""
    g, n = p["gates"], p["hidden"]
    wb, rb = p["B"][d][:g * n], p["B"][d][g * n:]
    fold = wb + rb
    if node.op_type == "GRU" and p["lbr"]:
        fold[2 * n:] = wb[2 * n:]  # Rbh stays inside the reset product
    return fold, rb[(g - 1) * n:]


def _loop(node: Any, st: Steps, xw: str, h: str, c: str | None, r: np.ndarray, rbh: np.ndarray,
          peep: np.ndarray | None, acts: list, p: dict[str, Any], step_row: Any) -> tuple[list[str], str, str | None]:
    """The unrolled time loop: ([Y_t in processing order], H_T, C_T). Step t reads the ``batch`` rows of ``xw``
    starting at step_row(t)·batch; past a sequence's end (sequence_lens) the state is carried and Y_t is 0
    (constant 0/1 masks). ``xw`` (seq·batch, gates·hidden), states (batch, hidden), Y_t (batch, hidden)."""
    seq, batch, lens = p["seq"], p["batch"], p["lens"]
    ys = []
    for t in range(seq):
        xw_t = st.rows(xw, step_row(t) * batch, batch)
        c_new: str | None = None
        if c is not None:
            h_new, c_new = st.lstm(xw_t, h, c, r, peep, acts, p["input_forget"])
        elif node.op_type == "GRU":
            h_new = st.gru(xw_t, h, r, rbh, acts, p["lbr"])
        else:
            h_new = st.rnn(xw_t, h, r, acts)
        if lens is not None and t >= lens.min():
            mask = const_data(st.ctx, f"{st.base}_mask", (t < lens).astype(np.float32).reshape(batch, 1))
            h = st.masked(h_new, h, mask)
            if c is not None and c_new is not None:
                c = st.masked(c_new, c, mask)
            ys.append(st.elt(EltwiseMode.prod, mask, h_new) if p["want_y"] else "")
        else:
            h, c = h_new, c_new
            ys.append(h)
    return ys, h, c


def _direction(ctx: Any, node: Any, st: Steps, x2d: str, d: int, reverse: bool, p: dict[str, Any]) -> tuple:
    """Unroll one direction. Returns (Y rows (seq·batch, hidden) in time order or None, H_T, C_T or None)."""
    seq, batch, n = p["seq"], p["batch"], p["hidden"]
    fold, rbh = _fold(node, p, d)
    xw = ctx.add(FullyConnected(ctx.fresh(f"{st.base}_xw"), x2d, weights=const_data(ctx, f"{st.base}_W", p["W"][d]),
                                bias=const_data(ctx, f"{st.base}_B", fold)))
    order = None
    if reverse and p["lens"] is not None:
        order = const_data(ctx, f"{st.base}_rev", _reversal(p["lens"], seq, batch))
        xw = ctx.add(Gather(ctx.fresh(f"{st.base}_xw_rev"), xw, order, axis=0))
    h = _state(ctx, st.base, node, 5, [d], p["layout"], batch, n)
    c = _state(ctx, st.base, node, 6, [d], p["layout"], batch, n) if node.op_type == "LSTM" else None
    flip = reverse and order is None
    ys, h, c = _loop(node, st, xw, h, c, p["R"][d], rbh, None if p["P"] is None else p["P"][d], p["acts"][d], p,
                     (lambda t: seq - 1 - t) if flip else (lambda t: t))
    y = None
    if p["want_y"]:
        if flip:
            ys.reverse()
        y = ys[0] if seq == 1 else ctx.add(Concatenation(ctx.fresh(f"{st.base}_y"), ys, axis=0))
        if order is not None:
            y = ctx.add(Gather(ctx.fresh(f"{st.base}_y_rev"), y, order, axis=0))
    return y, h, c


def _pair(a_f: np.ndarray, a_b: np.ndarray, groups: int) -> np.ndarray:
    """Rows of two directions interleaved per gate: (groups·n, ...) twice → (groups·2n, ...), gate k's block
    holding direction 0's n rows then direction 1's."""
    k = a_f.shape[0] // groups
    both = np.stack([a_f.reshape(groups, k, -1), a_b.reshape(groups, k, -1)], axis=1)
    return np.ascontiguousarray(both.reshape((groups * 2 * k,) + a_f.shape[1:]), dtype=np.float32)


def _merged(ctx: Any, node: Any, st: Steps, x2d: str, p: dict[str, Any]) -> list[tuple]:
    """Both directions in one unrolled loop (bidirectional, same activations): state (batch, 2·hidden) = [forward |
    backward], every gate a (batch, 2·hidden) block, R block-diagonal, so each step's kernels serve both directions
    (half the launches). The backward direction reads X reversed (within each sequence's length) by a Gather of
    rows. Returns the per-direction results of :func:`_direction`."""
    seq, batch, n, g = p["seq"], p["batch"], p["hidden"], p["gates"]
    (fold_f, rbh_f), (fold_b, rbh_b) = _fold(node, p, 0), _fold(node, p, 1)
    w, r, zb = p["W"], p["R"], np.zeros_like(fold_f)
    lens = p["lens"] if p["lens"] is not None else np.full(batch, seq)
    order = const_data(ctx, f"{st.base}_rev", _reversal(lens, seq, batch))
    x_rev = ctx.add(Gather(ctx.fresh(f"{st.base}_x_rev"), x2d, order, axis=0))
    xws = [ctx.add(FullyConnected(ctx.fresh(f"{st.base}_xw"), x, weights=const_data(ctx, f"{st.base}_W", wm),
                                  bias=const_data(ctx, f"{st.base}_B", bm)))
           for x, wm, bm in ((x2d, _pair(w[0], np.zeros_like(w[1]), g), _pair(fold_f, zb, g)),
                             (x_rev, _pair(np.zeros_like(w[0]), w[1], g), _pair(zb, fold_b, g)))]
    xw = st.elt(EltwiseMode.sum, *xws)
    zr = np.zeros_like(r[0])
    r2 = _pair(np.hstack([r[0], zr]), np.hstack([zr, r[1]]), g)
    peep = None if p["P"] is None else _pair(p["P"][0], p["P"][1], 3)
    h = _state(ctx, st.base, node, 5, [0, 1], p["layout"], batch, n)
    c = _state(ctx, st.base, node, 6, [0, 1], p["layout"], batch, n) if node.op_type == "LSTM" else None
    ys, h, c = _loop(node, st, xw, h, c, r2, np.concatenate([rbh_f, rbh_b]), peep, p["acts"][0], p, lambda t: t)
    y_f = y_b = None
    if p["want_y"]:
        y = ys[0] if seq == 1 else ctx.add(Concatenation(ctx.fresh(f"{st.base}_y"), ys, axis=0))
        y_f = st.crop(y, 0, n)
        y_b = st.crop(ctx.add(Gather(ctx.fresh(f"{st.base}_y_rev"), y, order, axis=0)), n, n)
    return [(y_f, st.crop(h, 0, n), None if c is None else st.crop(c, 0, n)),
            (y_b, st.crop(h, n, n), None if c is None else st.crop(c, n, n))]


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
    clip_value = None if clip is None else float(clip)
    results: list[tuple[str | None, str, str | None]]
    if fusable(node, p):
        results = []
        for d in range(nd):
            h0 = _state(ctx, f"{base}_d{d}", node, 5, [d], layout, batch, n)
            c0 = _state(ctx, f"{base}_d{d}", node, 6, [d], layout, batch, n)
            results.append(fused_direction(ctx, node, f"{base}_d{d}", x2d, d, direction == "reverse" or d == 1, p,
                                           h0, c0, clip_value))
    elif fusable_gru(node, p):
        results = [fused_gru_direction(ctx, node, f"{base}_d{d}", x2d, d, direction == "reverse" or d == 1, p,
                                       _state(ctx, f"{base}_d{d}", node, 5, [d], layout, batch, n), clip_value)
                   for d in range(nd)]
    elif nd == 2 and p["acts"][0] == p["acts"][1]:
        results = _merged(ctx, node, Steps(ctx, f"{base}_bi", 2 * n, clip_value), x2d, p)
    else:
        results = [_direction(ctx, node, Steps(ctx, f"{base}_d{d}", n, clip_value), x2d, d,
                              direction == "reverse" or d == 1, p) for d in range(nd)]
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

