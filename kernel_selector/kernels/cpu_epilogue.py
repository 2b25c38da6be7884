"""Fused-op epilogues for the fast numba CPU kernels (pooling_cpu_fsv16, eltwise_cpu_vec,
fully_connected_cpu_blas's fc_rows).

A fused chain (``params.fused_ops``) becomes three small arrays: ``codes`` (int64: an activation code, the index of
its function in :data:`ACT_CODES`, or ``ELT_BASE`` + an eltwise mode code of :data:`ELT_CODES`), ``fa`` and ``fb``
(float32 activation parameters). :func:`chain_span` applies it op by op to a span of a row held in cache, each op
one straight loop (relu, leaky relu, clamp and linear as float32 vector loops, the others through
:func:`activate` in float64). At most one fused eltwise (with one operand) is supported; its operand is located by
an :func:`operand_map` (offset, pitch, block and in-block pitch per output dimension b, f, y, x; a broadcast
dimension has pitch 0), so any format, padding and numpy broadcast of the operand works. The formulas are those of
:mod:`kernel_selector.cpu_activations` (themselves the OpenCL ones): relu maps NaN to 0, clamp / hard_sigmoid /
fused max and min ignore a NaN operand like C ``fmax`` / ``fmin``.

``NJIT``: the numba options every kernel here uses: ``cache=True``; fastmath without ``nnan`` / ``ninf`` (the NaN
rules above must hold) but with reassociation and contraction (vectorized reductions, fma); ``error_model="numpy"``
(x / 0 gives inf, no exception). Threads and buffer views: :mod:`.cpu_launch`.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

from cldnn_py.layout import DIMS, Layout
from cldnn_py.ops import EltwiseMode

from ..cpu_activations import NP_ACTIVATIONS
from ..params import FusedOp, Params

FASTMATH = {"nsz", "arcp", "contract", "afn", "reassoc"}
NJIT: dict[str, Any] = {"cache": True, "fastmath": FASTMATH, "error_model": "numpy"}

ACT_CODES: dict[str, int] = {name: i for i, name in enumerate(NP_ACTIVATIONS)}
ELT_CODES: dict[str, int] = {"sum": 0, "sub": 1, "prod": 2, "div": 3, "max": 4, "min": 5, "pow": 6, "prelu": 7}
ELT_BASE = 100


def _c(name: str) -> int:
    return ACT_CODES[name]


# activation codes as module constants: numba freezes globals at compile time
RELU, RELU_NS, CLAMP, LOGISTIC, TANH, ELU = (_c("relu"), _c("relu_negative_slope"), _c("clamp"), _c("logistic"),
                                             _c("tanh"), _c("elu"))
ABS, EXP, LOG, SQRT, SQUARE, SOFTPLUS = _c("abs"), _c("exp"), _c("log"), _c("sqrt"), _c("square"), _c("softplus")
HSIGM, HSWISH, SWISH, GELU, GELU_TANH = (_c("hard_sigmoid"), _c("hard_swish"), _c("swish"), _c("gelu"),
                                         _c("gelu_tanh"))
LINEAR, NEG, RECIP, ERF, SELU = _c("linear"), _c("neg"), _c("reciprocal"), _c("erf"), _c("selu")


@numba.njit(**NJIT)
def fmax(a: float, b: float) -> float:
    """C ``fmax``: a NaN operand is ignored."""
    return a if (a >= b or b != b) else b


@numba.njit(**NJIT)
def fmin(a: float, b: float) -> float:
    """C ``fmin``: a NaN operand is ignored."""
    return a if (a <= b or b != b) else b


@numba.njit(**NJIT)
def activate(x: float, code: int, a: float, b: float) -> float:  # noqa: C901 - one branch per function
    """Activation ``code`` (:data:`ACT_CODES`) of x with parameters a, b, in float64."""
    if code == RELU:
        return x if x > 0.0 else 0.0
    if code == RELU_NS:
        return x if x >= 0.0 else a * x
    if code == CLAMP:
        return fmin(fmax(x, a), b)
    if code == LOGISTIC:
        return 1.0 / (1.0 + math.exp(-x))
    if code == TANH:
        return math.tanh(x)
    if code == ELU:
        return x if x >= 0.0 else a * math.expm1(x)
    if code == ABS:
        return abs(x)
    if code == EXP:
        return math.exp(x)
    if code == LOG:
        return math.log(x) if x >= 0.0 else math.nan
    if code == SQRT:
        return math.sqrt(x) if x >= 0.0 else math.nan
    if code == SQUARE:
        return x * x
    if code == SOFTPLUS:
        return x if x > 20.0 else math.log1p(math.exp(min(x, 20.0)))
    if code == HSIGM:
        return fmax(0.0, fmin(1.0, a * x + b))
    if code == HSWISH:
        return x * fmin(fmax(x + 3.0, 0.0), 6.0) / 6.0
    if code == SWISH:
        return x / (1.0 + math.exp(-a * x))
    if code == GELU:
        return 0.5 * x * math.erfc(-x * 0.7071067811865476)
    if code == GELU_TANH:
        return x / (1.0 + math.exp(-1.5957691216057308 * (x + 0.044715 * x * x * x)))
    if code == LINEAR:
        return a * x + b
    if code == NEG:
        return -x
    if code == RECIP:
        return 1.0 / x
    if code == ERF:
        return math.erf(x)
    if code == SELU:
        return b * x if x > 0.0 else b * a * math.expm1(x)
    return x


@numba.njit(**NJIT)
def binary(a: float, b: float, mode: int) -> float:
    """Eltwise ``mode`` (:data:`ELT_CODES`) of a (the left operand) and b."""
    if mode == 0:
        return a + b
    if mode == 1:
        return a - b
    if mode == 2:
        return a * b
    if mode == 3:
        return a / b
    if mode == 4:
        return fmax(a, b)
    if mode == 5:
        return fmin(a, b)
    if mode == 6:
        return a ** b
    return a if a >= 0.0 else b * a


@numba.njit(**NJIT)
def act_span(buf: np.ndarray, s: int, cnt: int, code: int, a: float, b: float) -> None:
    """buf[s:s+cnt] = activation ``code`` of itself; relu, relu_negative_slope, clamp and linear as straight
    float32 vector loops, the rest through :func:`activate`. (Loops index a sub-view with the bare loop variable:
    an index like ``s + i`` keeps numba's negative-index wraparound check in the loop and LLVM from vectorizing
    it, 13x slower measured.)"""
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
    else:
        for i in range(cnt):
            v[i] = activate(v[i], code, a, b)


@numba.njit(**NJIT)
def chain_span(buf: np.ndarray, s: int, cnt: int, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray,
               res: np.ndarray, r0: int, rstep: int) -> None:
    """The fused chain on buf[s:s+cnt], op by op over the span (each a straight loop); the eltwise operand of
    element i is res[r0 + i * rstep]."""
    for j in range(codes.shape[0]):
        c = codes[j]
        if c < ELT_BASE:
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


def layout_offset(lay: Layout) -> int:
    """Flat index of logical element (0, 0, 0, 0): the lower padding times the pitches."""
    p = lay.pitches  # a blocked dimension is never padded, so its slice pitch never counts here
    return sum(lo * p[d] for d, lo in zip(DIMS, lay.padding.lower))


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


def fused_reason(params: Params) -> str | None:
    """Why :func:`chain_arrays` cannot express ``params.fused_ops``, or None: activations must be known, at most
    one eltwise (sum/sub/prod/div/max/min/pow) with one operand that broadcasts to the output."""
    n_elt = 0
    for op in params.fused_ops:
        if op.kind == "activation":
            if op.act().func not in ACT_CODES:
                return f"fused activation {op.act().func!r} unknown"
        elif op.kind == "eltwise":
            n_elt += 1
            mode = EltwiseMode(op.elt().mode).value
            if mode not in ELT_CODES or mode == "prelu" or len(op.extra_inputs) != 1:
                return f"fused eltwise {mode!r} with {len(op.extra_inputs)} operands"
            try:
                operand_map(op.extra_inputs[0], params.output)
            except ValueError as e:
                return str(e)
            if op.extra_inputs[0].dtype != params.output.dtype:
                return f"fused eltwise operand type {op.extra_inputs[0].dtype.value}"
        else:
            return f"fused op {op.kind!r} is not supported"
    return "more than one fused eltwise" if n_elt > 1 else None


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
    return codes, fa, fb, m


EMPTY = np.zeros(1, np.float32)  # the operand argument when the chain has no eltwise
