"""Fused-op epilogues for the fast numba CPU kernels (pooling_cpu_fsv16, eltwise_cpu_vec,
fully_connected_cpu_blas's fc_rows).

A fused chain (``params.fused_ops``) becomes three small arrays: ``codes`` (int64: an activation code of the
element-wise table, :data:`ACT_CODES`, or ``ELT_BASE`` + an eltwise mode code, :data:`ELT_CODES`), ``fa`` and ``fb``
(float32 activation parameters). :func:`chain_span` applies it op by op to a span of a row held in cache, each op
one straight loop (relu, leaky relu, clamp, linear, hard_swish, hard_sigmoid, logistic, swish as float32 loops, the
others through :func:`activate` in float64). At most one fused eltwise (with one operand) is supported; its operand is
located by an :func:`operand_map` (offset, pitch, block and in-block pitch per output dimension b, f, y, x; a broadcast
dimension has pitch 0), so any format, padding and numpy broadcast of the operand works. The formulas are those of
the element-wise table (:mod:`cldnn_py.ops.elementwise`, numba renderer
:mod:`kernel_selector.common.elementwise_numba`): relu maps NaN to 0, clamp / hard_sigmoid /
fused max and min ignore a NaN operand like C ``fmax`` / ``fmin``.

``NJIT`` (:mod:`kernel_selector.common.elementwise_numba`): the numba options every kernel here uses. Threads and
buffer views: :mod:`.cpu_launch`.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import DIMS, Layout
from cldnn_py.ops import EltwiseMode

from ..common.cpu_fastmath import exp_f32, gelu_f32
from ..common.cpu_fused import cpu_fused_reason
from ..common.cpu_layout import layout_offset
from ..common.elementwise_numba import ACT_CODES, ELT_CODES, NJIT, activate, binary
from ..params import FusedOp, Params

ELT_BASE = 100
FAKE_QUANT = 90
"""The code :func:`chain_arrays` gives the first op of linear → round → clamp → linear (the fake quantization a QDQ
pair becomes, onnx_ops/quantization.py): one loop ``clamp(rint(a0 x + b0), a2, b2) * a3 + b3`` over the span with
the four ops' parameters, instead of four (a QDQ residual block's chain runs 4 loops instead of 10)."""
SKIP = 91
"""The code of the three ops a FAKE_QUANT took in (their parameters stay in place)."""
I0, I1 = np.int64(0), np.int64(1)
"""0 and 1 as int64 for the integer arguments of :func:`chain_span` / :func:`operand_index` in numba callers: a bare
``0`` there is typed ``Literal[int](0)`` and numba compiles (and caches) one more specialization of the callee, and of
everything it calls, for each combination of literals (chain_span had six, 3-5 s of compile each)."""


def _c(name: str) -> int:
    return ACT_CODES[name]


# activation codes of act_span's vector loops as module constants: numba freezes globals at compile time
RELU, RELU_NS, CLAMP, LINEAR = _c("relu"), _c("relu_negative_slope"), _c("clamp"), _c("linear")
HSWISH, HSIGMOID, LOGISTIC, SWISH = _c("hard_swish"), _c("hard_sigmoid"), _c("logistic"), _c("swish")
ROUND, GELU = _c("round"), _c("gelu")


@numba.njit(**NJIT)
def act_span(buf: np.ndarray, s: int, cnt: int, code: int, a: float, b: float) -> None:
    """buf[s:s+cnt] = activation ``code`` of itself; relu, relu_negative_slope, clamp, linear, hard_swish,
    hard_sigmoid, logistic, swish (SiLU), gelu and round (half to even: ``np.rint``, LLVM's vectorized rint; the
    fake quantization of QDQ models) as straight float32 loops (logistic, swish and gelu on the vectorized
    :func:`~.cpu_fastmath.exp_f32`: 9x faster than ``expf`` per element; :func:`~.cpu_fastmath.gelu_f32`), the
    rest through :func:`activate` (float64, a code switch per element: 5-10x slower; round that way cost the int8
    ResNet-50 about 110 of its 240 ms).
    (Loops index a sub-view with the bare loop variable: an index like ``s + i`` keeps numba's negative-index
    wraparound check in the loop and LLVM from vectorizing it, 13x slower measured.)"""
    v = buf[s:s + cnt]
    zero = np.float32(0.0)
    if code == RELU:
        for i in range(cnt):
            t = v[i]
            v[i] = t if t > zero else zero
    elif code == RELU_NS:
        sa = np.float32(a)
        for i in range(cnt):
            t = v[i]
            v[i] = t if t >= zero else sa * t
    elif code == CLAMP:
        lo, hi = np.float32(a), np.float32(b)
        for i in range(cnt):
            t = v[i]
            t = t if t > lo else lo
            v[i] = t if t < hi else hi
    elif code == LINEAR:
        sa, sb = np.float32(a), np.float32(b)
        for i in range(cnt):
            v[i] = sa * v[i] + sb
    elif code == HSWISH:  # x * fmin(fmax(x + 3, 0), 6) / 6: a NaN sum becomes 0 as fmax/fmin have it
        three, six, sixth = np.float32(3.0), np.float32(6.0), np.float32(1.0 / 6.0)
        for i in range(cnt):
            t = v[i] + three
            t = t if t > zero else zero
            t = t if t < six else six
            v[i] = v[i] * t * sixth
    elif code == HSIGMOID:  # fmax(0, fmin(1, a * x + b))
        sa, sb, one = np.float32(a), np.float32(b), np.float32(1.0)
        for i in range(cnt):
            t = sa * v[i] + sb
            t = t if t < one else one
            v[i] = t if t > zero else zero
    elif code == LOGISTIC:
        one = np.float32(1.0)
        for i in range(cnt):
            v[i] = one / (one + exp_f32(-v[i]))
    elif code == SWISH:
        one, sa = np.float32(1.0), np.float32(a)
        for i in range(cnt):
            v[i] = v[i] / (one + exp_f32(-sa * v[i]))
    elif code == ROUND:
        for i in range(cnt):
            v[i] = np.rint(v[i])
    elif code == GELU:
        for i in range(cnt):
            v[i] = gelu_f32(v[i])
    else:
        for i in range(cnt):
            v[i] = activate(v[i], code, a, b)


@numba.njit(**NJIT)
def fake_quant_span(buf: np.ndarray, s: int, cnt: int, a0: float, b0: float, lo: float, hi: float, a3: float,
                    b3: float) -> None:
    """buf[s:s+cnt] = clamp(rint(a0 x + b0), lo, hi) * a3 + b3 (:data:`FAKE_QUANT`), in float32, each step as the
    separate ops compute it (linear, round half to even, clamp as act_span's, linear)."""
    v = buf[s:s + cnt]
    sa, sb, sl, sh, sc, sd = np.float32(a0), np.float32(b0), np.float32(lo), np.float32(hi), np.float32(a3), \
        np.float32(b3)
    for i in range(cnt):
        t = np.rint(sa * v[i] + sb)
        t = t if t > sl else sl
        t = t if t < sh else sh
        v[i] = sc * t + sd


@numba.njit(**NJIT)
def chain_span(buf: np.ndarray, s: int, cnt: int, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray,
               res: np.ndarray, r0: int, rstep: int) -> None:
    """The fused chain on buf[s:s+cnt], op by op over the span (each a straight loop); the eltwise operand of
    element i is res[r0 + i * rstep]."""
    for j in range(codes.shape[0]):
        c = codes[j]
        if c == SKIP:
            continue
        if c == FAKE_QUANT:
            fake_quant_span(buf, s, cnt, fa[j], fb[j], fa[j + 2], fb[j + 2], fa[j + 3], fb[j + 3])
        elif c < ELT_BASE:
            act_span(buf, s, cnt, c, fa[j], fb[j])
        elif c == ELT_BASE and rstep == 1:
            v, r = buf[s:s + cnt], res[r0:r0 + cnt]
            for i in range(cnt):
                v[i] += r[i]
        else:
            v = buf[s:s + cnt]
            for i in range(cnt):
                v[i] = binary(v[i], res[r0 + i * rstep], c - ELT_BASE)


@numba.njit(**NJIT)
def lane_step(m: np.ndarray) -> int:
    """Flat distance between features f and f + 1 of one 16-aligned slice in an operand map (blocked: the inner
    pitch; plain: the feature pitch; broadcast: 0)."""
    return m[10] if m[6] > 1 else m[2]


@numba.njit(**NJIT)
def operand_index(m: np.ndarray, b: int, f: int, y: int, x: int) -> int:
    """Flat index of output element (b, f, y, x) in an operand described by :func:`operand_map` ``m``."""
    return (m[0] + (b // m[5]) * m[1] + (b % m[5]) * m[9] + (f // m[6]) * m[2] + (f % m[6]) * m[10]
            + (y // m[7]) * m[3] + (y % m[7]) * m[11] + (x // m[8]) * m[4] + (x % m[8]) * m[12])


def operand_map(lay: Layout, out: Layout) -> np.ndarray:
    """int64[13] (offset, pitch[4], block[4], inner pitch[4]) mapping an output coordinate (b, f, y, x) to the
    flat index of the numpy-broadcast element of a tensor of layout ``lay`` (rank <= the output's, trailing
    dimensions aligned; a size-1 dimension broadcasts: pitch 0). For a blocked dimension the pitch is the
    slice pitch and the inner pitch 1. Raises ValueError when ``lay`` cannot be indexed this way (rank > 4 unless
    the shapes are equal)."""
    m = np.zeros(13, np.int64)
    m[0] = layout_offset(lay)
    m[5:9] = 1
    if out.rank > 4 or lay.rank > 4:
        if lay.count() == 1:
            return m
        if lay.shape != out.shape:
            raise ValueError(f"operand {lay} cannot broadcast to the rank-{out.rank} output {out}")
    off = out.rank - lay.rank if out.rank <= 4 else 0
    if off < 0:
        raise ValueError(f"operand {lay} has a higher rank than the output {out}")
    pitches = lay.pitches
    blk = lay.format.block
    own = lay.dims4
    for d in range(min(out.rank, 4)):
        j = d - off  # the operand's own dimension
        if j < 0 or own[j] == 1:
            continue
        name = DIMS[j]
        if blk is not None and blk[0] == name:
            m[1 + d], m[5 + d], m[9 + d] = pitches[name], blk[1], 1
        else:
            m[1 + d] = pitches[name]
    return m


def operand_reason(lay: Layout, out: Layout) -> str | None:
    """Why an eltwise operand of layout ``lay`` cannot be addressed by an :func:`operand_map` of the output
    ``out`` (or has another data type), or None."""
    try:
        operand_map(lay, out)
    except ValueError as e:
        return str(e)
    return f"fused eltwise operand type {lay.dtype.value}" if lay.dtype != out.dtype else None


def fused_reason(params: Params) -> str | None:
    """Why :func:`chain_arrays` cannot express ``params.fused_ops``, or None (:func:`cpu_fused_reason` with
    operands an :func:`operand_map` addresses, at most one eltwise)."""
    return cpu_fused_reason(params, operand_reason, max_eltwise=1)


def chain_arrays(ops: list[FusedOp], out: Layout) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(codes, fa, fb, operand map) of a fused chain accepted by :func:`fused_reason`; the map is of the eltwise
    operand (zeros when there is none)."""
    codes = np.zeros(len(ops), np.int64)
    fa = np.zeros(len(ops), np.float32)
    fb = np.zeros(len(ops), np.float32)
    m = np.zeros(13, np.int64)
    m[5:9] = 1
    for i, op in enumerate(ops):
        if op.kind == "activation":
            codes[i] = ACT_CODES[op.act().func]
            fa[i], fb[i] = op.act().a, op.act().b
        else:
            codes[i] = ELT_BASE + ELT_CODES[EltwiseMode(op.elt().mode).value]
            m = operand_map(op.extra_inputs[0], out)
    i = 0
    while i < len(ops) - 3:
        if fake_quant_params(ops[i:i + 4]) is not None:
            codes[i], codes[i + 1:i + 4] = FAKE_QUANT, SKIP
            i += 4
        else:
            i += 1
    return codes, fa, fb, m


def fake_quant_params(ops: list[FusedOp]) -> tuple[float, ...] | None:
    """(a, b, lo, hi, c, d) when ``ops`` starts with the four activations linear(a, b), round, clamp(lo, hi),
    linear(c, d) that a QDQ pair becomes (:data:`FAKE_QUANT`; the packed convolution's register epilogue takes the
    same), else None."""
    if len(ops) < 4 or any(op.kind != "activation" for op in ops[:4]):
        return None
    acts = [op.act() for op in ops[:4]]
    if [a.func for a in acts] != ["linear", "round", "clamp", "linear"]:
        return None
    return (float(acts[0].a), float(acts[0].b), float(acts[2].a), float(acts[2].b), float(acts[3].a),
            float(acts[3].b))


EMPTY = np.zeros(1, np.float32)  # the operand argument when the chain has no eltwise

ACT_CHUNK = 16384  # elements per task of :func:`act_chain_inplace` (64 KB: the chain runs on it while it is in L2)


@numba.njit(parallel=True, **NJIT)
def act_chain_inplace(buf: np.ndarray, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray) -> None:  # pragma: no cover
    """A fused chain of activations (no eltwise operand) applied in place to all of ``buf`` (1-D), chunk by chunk
    in parallel: the epilogue of a kernel whose product comes from BLAS (fully_connected_cpu_blas)."""
    n = buf.shape[0]
    for t in prange((n + ACT_CHUNK - 1) // ACT_CHUNK):
        s = t * ACT_CHUNK
        chain_span(buf, s, min(n, s + ACT_CHUNK) - s, codes, fa, fb, EMPTY, I0, I0)
