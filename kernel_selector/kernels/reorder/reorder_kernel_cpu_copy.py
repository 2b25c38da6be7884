"""reorder_cpu_copy: a reorder (format and/or data type change, ONNX Cast) on the CPU engine as strided row copies
that convert each element on the way (numba), instead of reorder_cpu_ref's index maps.

Both tensors are described by per-axis offsets (:mod:`...common.cpu_strides`); the longest run of logical elements
that is one stride in both is a row and a table of row starts per tensor is built once at ``make_fn`` time, as in
:mod:`...common.cpu_row_copy` (whose :class:`~...common.cpu_row_copy.RowCopy` does the bit-exact copy when the
data type does not change). A row contiguous on both sides is one straight loop; a row strided on one side (a
transposition: bfyx <-> byxf, bfyx <-> b_fs_yx_fsv16) is copied in tiles of ``TILE`` columns across a group of
neighbouring rows, so the strided side's cache lines are reused by the rows that follow instead of re-fetched.
"""

from __future__ import annotations

from collections.abc import Callable
from math import gcd
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import DataType, Format, Layout
from cldnn_py.ops import ReorderAttrs

from ...common.cpu_launch import Launcher
from ...common.cpu_layout import layout_offset
from ...common.cpu_row_copy import CHUNK, RowCopy
from ...common.cpu_strides import axis_offsets, inner_run, run_table
from ...common.elementwise_numba import NJIT
from ...cpu_kernel_base import CPU, CpuKernelBase
from ...kernel_base import COPY_TYPES, FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register

FORMATS = frozenset({Format.bfyx, Format.byxf, Format.yxfb, Format.fyxb, Format.b_fs_yx_fsv16})
TILE = 64  # columns of a strided row copied before moving to the next row of the group
GROUP = 16  # rows of a task when a row is strided on either side (one b_fs_yx_fsv16 block of features)

# Element operations (the "op" of convert_rows), chosen once per (input type, output type, convert_mode).
CAST, BOOL, F_RTE, F_RTZ, I_SAT = 0, 1, 2, 3, 4


@numba.njit(**NJIT)
def _float_to_int(v: Any, rte: bool, lo: float, hi: float) -> int:  # pragma: no cover - numba
    """A float value as an integer of range [lo, hi]: rounded to nearest even (``rte``) or toward zero, saturated,
    NaN -> 0 (OpenCL ``convert_<t>_sat_rte`` / ``_sat_rtz``). Computed in float64, where the bounds are exact."""
    d = np.float64(v)
    r = np.rint(d) if rte else d
    r = lo if r < lo else r
    r = hi if r > hi else r
    r = 0.0 if d != d else r
    return np.int32(r)  # in range of every integer output (i32, i8, u8): int32 converts as a vector, int64 not


@numba.njit(**NJIT)
def _int_sat(v: Any, lo: int, hi: int) -> int:  # pragma: no cover - numba
    """An integer value saturated into [lo, hi] (``convert_<t>_sat``)."""
    i = np.int32(v)  # every integer input and output range fits int32
    i = lo if i < lo else i
    return hi if i > hi else i


@numba.njit(**NJIT)
def _span(dst: np.ndarray, src: np.ndarray, m: int, op: int, flo: float, fhi: float, ilo: int,
          ihi: int) -> None:  # pragma: no cover - numba
    """dst[i] = op(src[i]) for i < m (contiguous spans); one loop per op so each is a straight (vector)
    loop. CAST is the C cast of the store (int -> float rounds to nearest even, int -> narrower int wraps)."""
    if op == CAST:
        for i in range(m):
            dst[i] = src[i]
    elif op == BOOL:
        for i in range(m):
            dst[i] = 1 if src[i] != 0 else 0
    elif op == F_RTE:
        for i in range(m):
            dst[i] = _float_to_int(src[i], True, flo, fhi)
    elif op == F_RTZ:
        for i in range(m):
            dst[i] = _float_to_int(src[i], False, flo, fhi)
    else:
        for i in range(m):
            dst[i] = _int_sat(src[i], ilo, ihi)


@numba.njit(parallel=True, **NJIT)
def convert_rows(out: np.ndarray, otab: np.ndarray, x: np.ndarray, xtab: np.ndarray, geo: np.ndarray,
                 lim: np.ndarray) -> None:  # pragma: no cover - numba
    """out[otab[r] + j·so] = op(x[xtab[r] + j·sx]) for every row r and j < n. ``geo`` = (n, sx, so, rows per task,
    elements per task, op); ``lim`` = float64 (lo, hi) of the output's integer range (F_RTE, F_RTZ, I_SAT).

    A task is one chunk of columns of a group of rows. Rows contiguous on both sides are converted one after the
    other; otherwise the chunk goes in tiles of TILE columns, each tile across all rows of the group: a strided
    input span is gathered into a buffer, converted contiguously, and scattered when the output is strided."""
    n, sx, so, per, ch, op = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5]
    flo, fhi = lim[0], lim[1]
    ilo, ihi = np.int32(flo), np.int32(fhi)
    nrows = xtab.shape[0]
    nch = (n + ch - 1) // ch
    for t in prange(((nrows + per - 1) // per) * nch):
        g = t // nch
        s = (t - g * nch) * ch
        m = min(n, s + ch) - s
        r0, r1 = g * per, min(nrows, g * per + per)
        if sx == 1 and so == 1:
            for r in range(r0, r1):
                xb = xtab[r] + s
                ob = otab[r] + s
                _span(out[ob:ob + m], x[xb:xb + m], m, op, flo, fhi, ilo, ihi)
        else:
            tin = np.empty(TILE, x.dtype)
            tout = np.empty(TILE, out.dtype)
            for j in range(s, s + m, TILE):
                k = min(TILE, s + m - j)
                for r in range(r0, r1):
                    xb = xtab[r] + j * sx
                    ob = otab[r] + j * so
                    if sx == 1:
                        src = x[xb:xb + k]
                    else:  # gathered first: the conversion itself always runs on contiguous spans (vectors)
                        gx = x[xb:xb + k * sx:sx]
                        for i in range(k):
                            tin[i] = gx[i]
                        src = tin[:k]
                    if so == 1:
                        _span(out[ob:ob + k], src, k, op, flo, fhi, ilo, ihi)
                    else:
                        _span(tout[:k], src, k, op, flo, fhi, ilo, ihi)
                        d = out[ob:ob + k * so:so]
                        for i in range(k):
                            d[i] = tout[i]


def element_op(src: DataType, dst: DataType, mode: str) -> tuple[int, float, float]:
    """(op, lo, hi) of ``convert_rows`` converting ``src`` to ``dst`` under ``convert_mode`` (the semantics of
    :func:`kernel_selector.common.convert.convert`, reorder_cpu_ref's): "bool" 1 where non-zero; to f32 a cast;
    float -> integer rounded to nearest even ("round") or toward zero ("truncate"), saturated, NaN -> 0; integer ->
    integer saturated ("round", unless the output range holds the input's) or wrapped ("truncate"). ``lo`` and
    ``hi`` bound the output's integer range (0, 0 for a float output)."""
    if mode == "bool":
        return BOOL, 0.0, 0.0
    to = np.dtype(dst.numpy)
    if to.kind == "f":
        return CAST, 0.0, 0.0
    info = np.iinfo(to)
    lo, hi = float(info.min), float(info.max)
    if np.dtype(src.numpy).kind == "f":
        return (F_RTZ if mode == "truncate" else F_RTE), lo, hi
    frm = np.iinfo(np.dtype(src.numpy))
    if mode == "truncate" or (frm.min >= info.min and frm.max <= info.max):
        return CAST, lo, hi
    return I_SAT, lo, hi


class RowConvert:
    """Converts the logical elements of one tensor into another of the same logical shape, any two layouts of
    :data:`FORMATS` (padding included), as ``convert_rows`` row copies. Each side is (logical shape, per-axis offsets
    from :func:`...common.cpu_strides.axis_offsets`, flat index of logical element 0, buffer bytes, numpy dtype).
    ``__call__(src_buf, dst_buf)`` takes the raw uint8 buffers; only the destination's logical elements are written.
    Raises ValueError when the shapes differ."""

    def __init__(self, src: tuple[tuple[int, ...], list[np.ndarray], int, int, np.dtype],
                 dst: tuple[tuple[int, ...], list[np.ndarray], int, int, np.dtype],
                 op: tuple[int, float, float]) -> None:
        (xs, xo, xb, self.xbytes, self.xdt), (os_, oo, ob, self.obytes, self.odt) = src, dst
        if tuple(xs) != tuple(os_):
            raise ValueError(f"conversion of {xs} into {os_}: shapes differ")
        n = gcd(inner_run(xs, xo)[1], inner_run(os_, oo)[1])
        self.xtab, sx = run_table(xs, xo, xb, n)
        self.otab, so = run_table(os_, oo, ob, n)
        if n == 1:
            sx = so = 1  # one element per row: the stride is never used (and may be 0)
        if sx == 1 and so == 1:
            per, ch = max(1, CHUNK // n), min(n, CHUNK)
        else:
            per, ch = GROUP, min(n, max(TILE, CHUNK // GROUP))
        self.geo = np.array([n, sx, so, per, ch, op[0]], np.int64)
        self.lim = np.array(op[1:], np.float64)
        self.launch = Launcher(2 * int(np.prod(xs)))

    def __call__(self, src: Any, dst: Any) -> None:
        """Convert from the raw buffer ``src`` into the raw buffer ``dst``."""
        self.launch(convert_rows, dst[:self.obytes].view(self.odt), self.otab, src[:self.xbytes].view(self.xdt),
                    self.xtab, self.geo, self.lim)


def copy_order(out: Layout) -> list[int]:
    """The logical axes in the order the copy walks them: a plain output's physical order (outermost first, so its
    rows are contiguous: byxf -> byxf converts whole runs); the logical order for b_fs_yx_fsv16 and rank 5-6. The
    conversion is element-wise, so any order gives the same result."""
    if out.format.block is not None or out.rank > 4:
        return list(range(out.rank))
    stride = [int(o[1] - o[0]) if len(o) > 1 else 0 for o in axis_offsets(out)]
    return sorted(range(out.rank), key=lambda d: -stride[d])


def _side(lay: Layout, order: list[int]) -> tuple[tuple[int, ...], list[np.ndarray], int, int, np.dtype]:
    offs = axis_offsets(lay)
    return (tuple(lay.shape[d] for d in order), [offs[d] for d in order], layout_offset(lay), lay.bytes,
            np.dtype(lay.dtype.numpy))


@register
class ReorderKernelCpuCopy(CpuKernelBase):
    """Reorder (clDNN ``reorder_data``, ``reorder_ref``'s semantics) on the CPU engine: y[b, f, y, x] =
    convert(x[b, f, y, x]) from any of bfyx / byxf / yxfb / fyxb / b_fs_yx_fsv16 to any of them, the same logical
    shape (rank 1-4; 5-6 in unpadded bfyx), padding allowed on both sides (only the output's logical elements are
    written: its padding and block tail keep their content).

    Data types f32, i32, i8, u8 in and out, any pair, with ``convert_mode`` exactly as reorder_cpu_ref
    (:func:`element_op`): "round" to an integer type rounds half to even and saturates (NaN -> 0, ±inf -> the
    bounds), "truncate" rounds float toward zero saturating and wraps integer -> narrower integer, "bool" gives 1
    where the value is non-zero (NaN included); to f32 a cast. The same type without "bool" is a bit-exact copy
    (:class:`~...common.cpu_row_copy.RowCopy`). Threads: ``prange`` over (row group, column chunk) tasks.

    Refused (validate(), reorder_cpu_ref runs): fused ops, input and output shapes that differ. f16 and i64 are
    outside the key (the CPU engine computes in f32)."""

    name = "reorder_cpu_copy"
    primitive = "reorder"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU, f32 / i32 / i8 / u8 in and out, plain formats and b_fs_yx_fsv16, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=COPY_TYPES, output_dtypes=COPY_TYPES, input_formats=FORMATS,
                            output_formats=FORMATS)

    def validate(self, params: Params) -> str | None:
        """One input of the output's shape, no fused ops."""
        x, out = params.inputs[0], params.output
        if x.shape != out.shape:
            return f"input shape {x.shape} and output shape {out.shape} differ"
        return "fused ops are not supported" if params.fused_ops else None

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output)."""
        x, out = params.inputs[0], params.output
        mode = params.attrs_as(ReorderAttrs).convert_mode
        order = copy_order(out)
        src, dst = _side(x, order), _side(out, order)
        run: RowCopy | RowConvert
        if x.dtype == out.dtype and mode != "bool":
            run = RowCopy(src[:4], dst[:4], out.dtype.size)
        else:
            run = RowConvert(src, dst, element_op(x.dtype, out.dtype, mode))

        def fn(*bufs: Any) -> None:
            run(bufs[0], bufs[-1])  # no fused ops: the output is the last buffer

        return fn
