"""arg_max_cpu_rows: arg max / arg min along one axis on the CPU engine, numba loops over the axis (one row per
task, or up to BLOCK rows side by side when the axis is not innermost) instead of the reference's gathered logical
arrays."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import DataType, Format
from cldnn_py.ops import ArgMaxAttrs

from ...common.cpu_launch import Launcher, viewer
from ...common.cpu_layout import layout_offset
from ...common.cpu_strides import axis_offsets, offset_table, stride_of
from ...common.elementwise_numba import NJIT
from ...common.nd_index import nd_check
from ...cpu_kernel_base import CPU, CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register

FORMATS = frozenset({Format.bfyx, Format.byxf, Format.yxfb, Format.fyxb, Format.b_fs_yx_fsv16})
BLOCK = 256  # positions of the trailing axes reduced side by side per task when the axis is not innermost


@numba.njit(inline="always", **NJIT)
def beats(v: float, best: float, mn: bool, last: bool) -> bool:  # pragma: no cover - numba
    """Whether ``v`` (at a later index) replaces ``best``: the comparison of arg_max_ref. A NaN beats every
    number (the first NaN is kept, or the last one with ``last``); ties keep the first index unless ``last``;
    ``mn`` compares for the minimum."""
    if last:
        if v != v:
            return True
        if best != best:
            return False
        return v <= best if mn else v >= best
    if best != best:
        return False
    if v != v:
        return True
    return v < best if mn else v > best


@numba.njit(parallel=True, **NJIT)
def arg_rows(out: np.ndarray, otab: np.ndarray, x: np.ndarray, xo: np.ndarray, xa: np.ndarray, contig: bool,
             mn: bool, last: bool) -> None:  # pragma: no cover - numba
    """The axis innermost (nothing after it): out[otab[r]] = the index along the axis of row r, whose elements
    are at x[xo[r] + xa[a]] (``contig`` when ``xa`` is the stride 1: the row is a slice)."""
    na = xa.shape[0]
    for r in prange(xo.shape[0]):
        base = xo[r]
        bi = 0
        if contig:
            row = x[base:base + na]
            best = row[0]
            for a in range(1, na):
                v = row[a]
                if beats(v, best, mn, last):
                    best = v
                    bi = a
        else:
            best = x[base + xa[0]]
            for a in range(1, na):
                v = x[base + xa[a]]
                if beats(v, best, mn, last):
                    best = v
                    bi = a
        out[otab[r]] = bi


@numba.njit(parallel=True, **NJIT)
def arg_blocks(out: np.ndarray, otab: np.ndarray, x: np.ndarray, xo: np.ndarray, xa: np.ndarray,
               xi: np.ndarray, contig: bool, mn: bool, last: bool) -> None:  # pragma: no cover - numba
    """The axis followed by ``ni`` = len(xi) positions of the trailing axes: task (outer o, block k) reduces
    positions [k·BLOCK, ..) side by side, element (o, a, i) at x[xo[o] + xa[a] + xi[i]] (``contig`` when the
    trailing positions are contiguous: each step along the axis is a slice), and writes out[otab[o·ni + i]]."""
    ni = xi.shape[0]
    na = xa.shape[0]
    nblk = (ni + BLOCK - 1) // BLOCK
    for t in prange(xo.shape[0] * nblk):
        o = t // nblk
        i0 = (t - o * nblk) * BLOCK
        m = min(BLOCK, ni - i0)
        best = np.empty(m, np.float32)
        idx = np.zeros(m, np.int32)
        for a in range(na):
            base = xo[o] + xa[a]
            if contig:
                s0 = base + xi[i0]
                src = x[s0:s0 + m]
                if a == 0:
                    for j in range(m):
                        best[j] = src[j]
                else:
                    for j in range(m):
                        v = src[j]
                        if beats(v, best[j], mn, last):
                            best[j] = v
                            idx[j] = a
            else:
                for j in range(m):
                    v = x[base + xi[i0 + j]]
                    if a == 0:
                        best[j] = v
                    elif beats(v, best[j], mn, last):
                        best[j] = v
                        idx[j] = a
        ob = o * ni + i0
        for j in range(m):
            out[otab[ob + j]] = idx[j]


@register
class ArgMaxKernelCpuRows(CpuKernelBase):
    """Arg max / arg min along one axis (clDNN ``arg_max_min`` with top_k = 1, ONNX ArgMax / ArgMin;
    ``arg_max_ref``'s semantics) on the CPU engine: the index along ``axis`` of the largest (``mode="max"``) or
    smallest (``"min"``) element; ties give the first index, or the last with ``select_last_index``; a NaN beats
    every number (the first NaN, or the last one with ``select_last_index``), as numpy.argmax / argmin.

    Input f32 of rank 1-6 (rank 5-6 unpadded bfyx), bfyx / byxf / yxfb / fyxb / b_fs_yx_fsv16, possibly padded;
    output i32 indices (the axis kept as 1 or removed: the same row-major order) in the same formats, possibly
    padded (only its logical elements are written). The input is (outer, axis, inner) over its logical axes; each
    tensor is described by per-axis offsets (:mod:`...common.cpu_strides`) and offset tables built once. The axis
    innermost: one row per task, a scalar loop (:func:`arg_rows`); otherwise up to BLOCK inner positions side by
    side per task, one pass along the axis updating their running best (:func:`arg_blocks`, a contiguous slice
    per step when the inner positions are contiguous, e.g. the channels of bfyx). Threads: ``prange`` over rows
    / (outer, block) tasks; each index is found by one thread in axis order, so results do not depend on threads.

    Refused by validate() (arg_max_cpu_ref runs instead): an axis outside [-rank, rank), an output whose element
    count is not the input's over the axis size, rank 5-6 not unpadded bfyx, padding of a blocked (fsv16 feature)
    dimension (the offsets do not address whole-slice padding), fused ops (none on the reference either).
    """

    name = "arg_max_cpu_rows"
    primitive = "arg_max"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU, f32 input, i32 output, plain formats and b_fs_yx_fsv16, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=frozenset({DataType.f32}),
                            output_dtypes=frozenset({DataType.i32}), input_formats=FORMATS, output_formats=FORMATS)

    def validate(self, params: Params) -> str | None:
        """The axis in range, the output of the reduced element count, layouts the offsets address, no fused ops."""
        x, out = params.inputs[0], params.output
        rank, axis = x.rank, int(params.attrs_as(ArgMaxAttrs).axis)
        if not -rank <= axis < rank:
            return f"axis {axis} out of range for rank {rank}"
        if out.count() * x.shape[axis % rank] != x.count():
            return f"output {out.shape} is not input {x.shape} reduced along axis {axis}"
        why = nd_check([x], out) or self.blocked_padding_reason(params)
        if why:
            return why
        return "fused ops are not supported" if params.fused_ops else None

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output): the offset tables are built here, once."""
        x, out = params.inputs[0], params.output
        a = params.attrs_as(ArgMaxAttrs)
        ax = int(a.axis) % x.rank
        mn, last = a.mode == "min", bool(a.select_last_index)
        offs = axis_offsets(x)
        xo = offset_table(offs, range(ax), layout_offset(x))
        xa = offs[ax]
        xi = offset_table(offs, range(ax + 1, x.rank), 0)
        otab = offset_table(axis_offsets(out), range(out.rank), layout_offset(out))
        sa = stride_of(xa) if len(xa) > 1 else 1
        si = stride_of(xi) if len(xi) > 1 else 1
        view_x, view_out = viewer(x), viewer(out)
        launch = Launcher(x.count())
        if len(xi) == 1:
            xo = xo + xi[0]

            def fn(*bufs: Any) -> None:
                launch(arg_rows, view_out(bufs[-1]), otab, view_x(bufs[0]), xo, xa, sa == 1, mn, last)
        else:
            def fn(*bufs: Any) -> None:
                launch(arg_blocks, view_out(bufs[-1]), otab, view_x(bufs[0]), xo, xa, xi, si == 1, mn, last)

        return fn
