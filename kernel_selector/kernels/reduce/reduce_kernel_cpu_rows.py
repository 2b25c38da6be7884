"""reduce_cpu_rows: reduce (mean, sum, max, min, prod over any axes) of an unpadded bfyx tensor on the CPU engine,
numba loops over (outer, reduced, inner) blocks of the flat buffer instead of the reference's logical index maps.

DynamicQuantizeLinear takes the min and the max of every activation it quantizes, a transformer's decomposed
LayerNorm a ReduceMean per row, a classifier a global average: on ``reduce_cpu_ref`` each of these gathered the
whole tensor through an index map (milliseconds per activation). Here an unpadded bfyx tensor is a row-major array,
so after dropping axes of size 1 and merging neighbouring axes of the same kind (kept or reduced), a reduction over
one run of reduced axes is a (outer, red, inner) view of the buffer:

- inner = 1 (the trailing axes, or every axis): one row of ``red`` contiguous elements per output element;
- inner > 1 (the channel axis of NCHW, a middle axis): ``inner`` columns reduced side by side, row after row, so
  every inner loop walks memory contiguously.

An axis set of several separate runs (axes 1 and 3 of a 4-d tensor) is reduced one run after the other, the
innermost first, through intermediate buffers (``plan``); no logical transpose is needed. When a view has too few
independent output elements to keep the threads busy (every axis reduced: one), the reduced range is cut into a
fixed number of chunks (a function of the shape alone, never of the thread count) whose partial results a second,
small pass combines in chunk order: the results do not depend on the number of threads.

Algorithm source: clDNN ``reduce_gpu_ref`` / ONNX ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, with the
semantics of ``reduce_cpu_ref`` (float64 accumulation of sum, mean and prod, one rounding to float32 at the end;
max and min exact, NaN propagating as numpy's).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from cldnn_py.layout import DataType, Format
from cldnn_py.ops import ReduceAttrs, ReduceMode, normalize_axes

from ...common.cpu_launch import Launcher, viewer
from ...common.cpu_microkernel import W
from ...common.elementwise_numba import NJIT
from ...cpu_kernel_base import CPU, CpuKernelBase, physical_index
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register
from .reduce_kernel_ref import ReduceKernelRef

TARGET_TASKS = 32  # a view with fewer independent tasks is split further (columns in blocks, then chunks of red)
CHUNK_WORK = 16384  # elements a chunk of the reduced range reads at least
MAX_CHUNKS = 64
MIN_BLOCK = 64  # columns per task at least when the inner run is split into blocks
MAX_BLOCK = 1024  # columns per task at most (one float64 accumulator each)

# ---------------------------------------------------------------------------------------------------------------
# max / min on vectors: numba leaves `acc = v if v > acc else acc` a scalar chain (LLVM recognizes no float max
# reduction without no-NaN flags, and an in-place select becomes masked stores, microcoded on AMD), so the vector
# loops are LLVM IR: pick(a, v) = (v > a or v is NaN) ? v : a, lane by lane. A NaN accumulator stays NaN (v > NaN
# is false) and a NaN input replaces it: NaN propagates exactly as numpy's max / min.


def _pick(builder: ir.IRBuilder, a: Any, v: Any, is_min: bool) -> Any:
    """select(v < a (min) / v > a (max) or v != v, v, a) on scalars or vectors."""
    better = builder.fcmp_ordered("<" if is_min else ">", v, a)
    return builder.select(builder.or_(better, builder.fcmp_unordered("uno", v, v)), v, a)


def _vt() -> ir.VectorType:
    return ir.VectorType(ir.FloatType(), W)


def _vload(builder: ir.IRBuilder, base: Any, off: Any) -> Any:
    return builder.load(builder.bitcast(builder.gep(base, [off]), _vt().as_pointer()), align=4)


def _emit_row(context: Any, builder: ir.IRBuilder, sig: Any, args: list[Any], is_min: bool) -> Any:
    """max / min of nvec·W contiguous floats from x[off]: four vector accumulators, then across the lanes."""
    x_arr, off, nvec = args
    i64 = ir.IntType(64)
    base = builder.gep(context.make_array(sig.args[0])(context, builder, x_arr).data, [off])
    ident = float("inf") if is_min else float("-inf")
    init = ir.Constant(_vt(), [ident] * W)
    accs = [cgutils.alloca_once_value(builder, init) for _ in range(4)]
    n4 = builder.sdiv(nvec, ir.Constant(i64, 4))
    with cgutils.for_range(builder, n4) as loop:
        first = builder.mul(loop.index, ir.Constant(i64, 4 * W))
        for u in range(4):
            v = _vload(builder, base, builder.add(first, ir.Constant(i64, u * W)))
            builder.store(_pick(builder, builder.load(accs[u]), v, is_min), accs[u])
    with cgutils.for_range_slice(builder, builder.mul(n4, ir.Constant(i64, 4)), nvec, ir.Constant(i64, 1)) as (j, _):
        v = _vload(builder, base, builder.mul(j, ir.Constant(i64, W)))
        builder.store(_pick(builder, builder.load(accs[0]), v, is_min), accs[0])
    a = [builder.load(p) for p in accs]
    vec = _pick(builder, _pick(builder, a[0], a[1], is_min), _pick(builder, a[2], a[3], is_min), is_min)
    i32 = ir.IntType(32)
    s = builder.extract_element(vec, ir.Constant(i32, 0))
    for lane in range(1, W):
        s = _pick(builder, s, builder.extract_element(vec, ir.Constant(i32, lane)), is_min)
    return s


def _emit_fold(context: Any, builder: ir.IRBuilder, sig: Any, args: list[Any], is_min: bool) -> Any:
    """acc[aoff + j] = pick(acc[aoff + j], x[xoff + j]) for j < nvec·W (whole vectors)."""
    a_arr, aoff, x_arr, xoff, nvec = args
    i64 = ir.IntType(64)
    acc = builder.gep(context.make_array(sig.args[0])(context, builder, a_arr).data, [aoff])
    x = builder.gep(context.make_array(sig.args[2])(context, builder, x_arr).data, [xoff])
    with cgutils.for_range(builder, nvec) as loop:
        o = builder.mul(loop.index, ir.Constant(i64, W))
        ptr = builder.bitcast(builder.gep(acc, [o]), _vt().as_pointer())
        builder.store(_pick(builder, builder.load(ptr, align=4), _vload(builder, x, o), is_min), ptr, align=4)
    return context.get_dummy_value()


def _row_intrinsic(is_min: bool) -> Any:
    def typer(typingctx: Any, x: Any, off: Any, nvec: Any) -> Any:
        sig = types.float32(x, types.intp, types.intp)
        return sig, lambda context, builder, s, args: _emit_row(context, builder, s, args, is_min)

    typer.__name__ = f"row_{'min' if is_min else 'max'}_vec"
    return intrinsic(typer)


def _fold_intrinsic(is_min: bool) -> Any:
    def typer(typingctx: Any, acc: Any, aoff: Any, x: Any, xoff: Any, nvec: Any) -> Any:
        sig = types.void(acc, types.intp, x, types.intp, types.intp)
        return sig, lambda context, builder, s, args: _emit_fold(context, builder, s, args, is_min)

    typer.__name__ = f"fold_{'min' if is_min else 'max'}_vec"
    return intrinsic(typer)


row_max_vec = _row_intrinsic(False)
row_min_vec = _row_intrinsic(True)
fold_max_vec = _fold_intrinsic(False)
fold_min_vec = _fold_intrinsic(True)
"""``row_max_vec(x, off, nvec)``: the max of x[off : off + nvec·W] (float32 1-D array, NaN propagating; -inf for
nvec = 0); ``fold_max_vec(acc, aoff, x, xoff, nvec)``: acc[aoff + j] = max(acc[aoff + j], x[xoff + j]) for
j < nvec·W. The ``min`` twins likewise. Callable from numba code only; the caller guarantees the bounds."""


@numba.njit(inline="always", **NJIT)
def _row_pick(x: np.ndarray, s: int, n: int, is_min: bool) -> Any:  # pragma: no cover - numba
    """max (min) of x[s : s + n], NaN propagating: whole vectors in IR, the tail here."""
    nv = n // W
    if is_min:
        m = row_min_vec(x, s, nv)
    else:
        m = row_max_vec(x, s, nv)
    tail = x[s + nv * W:s + n]
    for j in range(tail.shape[0]):
        v = tail[j]
        if is_min:
            m = v if (v < m or v != v) else m
        else:
            m = v if (v > m or v != v) else m
    return m


@numba.njit(inline="always", **NJIT)
def _fold_pick(acc: np.ndarray, a0: int, x: np.ndarray, x0: int, n: int, is_min: bool) -> None:  # pragma: no cover
    """acc[a0 + j] = max (min)(acc[a0 + j], x[x0 + j]) for j < n, NaN propagating."""
    nv = n // W
    if is_min:
        fold_min_vec(acc, a0, x, x0, nv)
    else:
        fold_max_vec(acc, a0, x, x0, nv)
    k = nv * W
    dst = acc[a0 + k:a0 + n]
    src = x[x0 + k:x0 + n]
    for j in range(dst.shape[0]):
        v, m = src[j], dst[j]
        if is_min:
            dst[j] = v if (v < m or v != v) else m
        else:
            dst[j] = v if (v > m or v != v) else m


@numba.njit(inline="always", **NJIT)
def _task(t: int, per: int, nblk: int, blk: int, clen: int, red: int, nchunk: int,
          inner: int) -> tuple[int, int, int, int, int]:  # pragma: no cover - numba
    """Task ``t`` of a pass (geo as :func:`reduce_minmax`): (outer index o, first column i0, reduced rows [r0, r1)
    of its chunk, offset d0 of its first partial result)."""
    o = t // per
    rem = t - o * per
    c = rem // nblk
    i0 = (rem - c * nblk) * blk
    r0 = c * clen
    return o, i0, r0, min(red, r0 + clen), (o * nchunk + c) * inner + i0


@numba.njit(parallel=True, **NJIT)
def reduce_minmax(out: np.ndarray, x: np.ndarray, geo: np.ndarray, is_min: bool) -> None:  # pragma: no cover
    """One max / min pass over x viewed as (outer, red, inner), float32 in and out: geo = (outer, red, inner, clen,
    nchunk, blk). out[(o·nchunk + c)·inner + i] = max (min) over r in chunk c (rows [c·clen, (c+1)·clen) ∩ [0,
    red)) of x[(o·red + r)·inner + i]. Tasks (prange): (o, c, block of blk columns)."""
    outer, red, inner, clen, nchunk, blk = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5]
    nblk = (inner + blk - 1) // blk
    per = nchunk * nblk
    for t in prange(outer * per):
        o, i0, r0, r1, d0 = _task(t, per, nblk, blk, clen, red, nchunk, inner)
        if inner == 1:
            out[d0] = _row_pick(x, o * red + r0, r1 - r0, is_min)
            continue
        n = min(blk, inner - i0)
        s0 = (o * red + r0) * inner + i0
        dst = out[d0:d0 + n]
        src = x[s0:s0 + n]
        for j in range(n):
            dst[j] = src[j]
        for r in range(r0 + 1, r1):
            _fold_pick(out, d0, x, (o * red + r) * inner + i0, n, is_min)


@numba.njit(parallel=True, **NJIT)
def reduce_sumprod(out: np.ndarray, x: np.ndarray, geo: np.ndarray, is_prod: bool,
                   div: float) -> None:  # pragma: no cover - numba
    """One sum (product) pass over x viewed as (outer, red, inner), x float32 or float64, out float64 (a
    partial result) or float32 (the last pass): geo as :func:`reduce_minmax`. Each output element accumulates its
    chunk's elements in float64, in increasing r (reassociation lets LLVM keep a few vector partial sums along a
    row), then is divided by ``div`` (the element count of a mean's last pass, else 1) and stored."""
    outer, red, inner, clen, nchunk, blk = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5]
    nblk = (inner + blk - 1) // blk
    per = nchunk * nblk
    for t in prange(outer * per):
        o, i0, r0, r1, d0 = _task(t, per, nblk, blk, clen, red, nchunk, inner)
        if inner == 1:
            row = x[o * red + r0:o * red + r1]
            s = 1.0 if is_prod else 0.0
            if is_prod:
                for j in range(row.shape[0]):
                    s *= np.float64(row[j])
            else:
                for j in range(row.shape[0]):
                    s += np.float64(row[j])
            out[d0] = s / div
            continue
        n = min(blk, inner - i0)
        acc = np.ones(n, np.float64) if is_prod else np.zeros(n, np.float64)
        for r in range(r0, r1):
            s0 = (o * red + r) * inner + i0
            src = x[s0:s0 + n]
            if is_prod:
                for j in range(n):
                    acc[j] *= np.float64(src[j])
            else:
                for j in range(n):
                    acc[j] += np.float64(src[j])
        dst = out[d0:d0 + n]
        for j in range(n):
            dst[j] = acc[j] / div


# ---------------------------------------------------------------------------------------------------------------
# planning (Python, once per kernel instance)


def merged_groups(shape: tuple[int, ...], axes: tuple[int, ...]) -> list[list[int]]:
    """[size, reduced (0/1)] runs of ``shape``: axes of size 1 dropped, neighbours of the same kind merged."""
    groups: list[list[int]] = []
    for i, n in enumerate(shape):
        if n == 1:
            continue
        red = int(i in axes)
        if groups and groups[-1][1] == red:
            groups[-1][0] *= n
        else:
            groups.append([n, red])
    return groups


def view_passes(shape: tuple[int, ...], axes: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """The (outer, red, inner) views that reduce ``shape`` over ``axes`` one run of reduced axes at a time, the
    innermost run first (each view is of the previous pass's result); one copy view (count, 1, 1) when no reduced
    axis is longer than 1."""
    groups = merged_groups(shape, axes)
    views = []
    while any(g[1] for g in groups):
        k = max(i for i, g in enumerate(groups) if g[1])
        outer = math.prod(g[0] for g in groups[:k])
        inner = math.prod(g[0] for g in groups[k + 1:])
        views.append((outer, groups[k][0], inner))
        del groups[k]
        if 0 < k < len(groups) and groups[k - 1][1] == groups[k][1]:
            groups[k - 1][0] *= groups.pop(k)[0]
    return views or [(math.prod(shape), 1, 1)]


def split_view(outer: int, red: int, inner: int) -> list[np.ndarray]:
    """geo arrays (outer, red, inner, clen, nchunk, blk) for one view: columns in blocks of blk (no effect on the
    result) and, while there are fewer than TARGET_TASKS tasks, the reduced range in nchunk chunks of clen rows
    (a function of the shape only) plus a combining view (outer, nchunk, inner) of the partial results."""
    blk = 1
    if inner > 1:
        want = -(-TARGET_TASKS // outer)  # column blocks wanted per outer index
        per = -(-inner // want)
        blk = min(inner, MAX_BLOCK, max(MIN_BLOCK, -(-per // 16) * 16))
    nblk = -(-inner // blk)
    nchunk = 1
    if outer * nblk < TARGET_TASKS:
        nchunk = max(1, min(MAX_CHUNKS, red * min(blk, inner) // CHUNK_WORK, -(-TARGET_TASKS // (outer * nblk))))
    clen = -(-red // nchunk)
    nchunk = -(-red // clen)
    geos = [np.array([outer, red, inner, clen, nchunk, blk], np.int64)]
    if nchunk > 1:
        geos.append(np.array([outer, nchunk, inner, nchunk, 1, blk], np.int64))
    return geos


def plan(shape: tuple[int, ...], axes: tuple[int, ...]) -> list[np.ndarray]:
    """Every pass's geo, in order (:func:`view_passes` then :func:`split_view`)."""
    return [g for v in view_passes(shape, axes) for g in split_view(*v)]


def _pass_size(g: np.ndarray) -> int:
    """Elements a pass writes: outer · nchunk · inner."""
    return int(g[0] * g[4] * g[2])


@register
class ReduceKernelCpuRows(CpuKernelBase):
    """Reduce (mean, sum, max, min, prod over any set of axes, keep_dims or not) on the CPU engine: the semantics of
    ``reduce_cpu_ref`` (after clDNN ``reduce_gpu_ref``, ONNX ReduceMean/Sum/Max/Min/Prod) on the flat buffers.

    Input: f32, bfyx without padding, rank 1-6 (row-major: the buffer is the logical array). Output: f32 bfyx,
    the kept elements in row-major order (the reference's; keep_dims changes only the shape); padded or not (a
    padded output is computed contiguously, then its logical elements scattered into the interior; padding kept).

    Algorithm (module docstring): runs of reduced axes, innermost first, each a (outer, red, inner) view: rows when
    inner = 1, columns side by side otherwise; chunks of the reduced range with a combining pass when there are
    too few independent outputs (a fixed rule on the shape: the same result for any thread count). sum / mean /
    prod accumulate each output (or chunk) in float64 in increasing index order (LLVM may keep several vector
    partial sums along a row: reassociation), intermediates in float64, one rounding to float32 at the end; a
    mean divides the float64 sum by the reduced element count: within about 1e-7 relative of the float64 reference
    (numpy's pairwise sum). max / min are exact (vector compares in LLVM IR), NaN propagating. Threads: ``prange``
    over (outer index, chunk, column block), numba's pool above ``PARALLEL_MIN_WORK`` elements per pass.

    validate() refuses (``reduce_cpu_ref`` runs): the reference's invalid axes (out of range, repeated), an empty
    input (a dimension of 0); the key refuses other formats, a padded input, other data types (the reference takes
    f32 only), and fused ops are not supported (the reference takes none either).
    """

    name = "reduce_cpu_rows"
    primitive = "reduce"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU, f32 in and out, bfyx, unpadded input, output padding allowed."""
        f32, bfyx = frozenset({DataType.f32}), frozenset({Format.bfyx})
        return SupportedKey(engines=CPU, input_dtypes=f32, output_dtypes=f32, input_formats=bfyx,
                            output_formats=bfyx, padded_inputs=False, padded_output=True)

    def validate(self, params: Params) -> str | None:
        """The reference's axis checks; no empty input; no fused ops."""
        why = ReduceKernelRef().validate(params)
        if why:
            return why
        x = params.inputs[0]
        if 0 in x.shape:
            return f"empty input {x}"
        if params.fused_ops:
            return "fused ops are not supported"
        return None

    def priority(self, params: Params) -> int:
        """Ahead of the reference."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(x, output): the passes of :func:`plan`, intermediates in float32 (max, min) or float64."""
        x, out = params.inputs[0], params.output
        a = params.attrs_as(ReduceAttrs)
        mode = ReduceMode(a.mode)
        axes = normalize_axes(tuple(a.axes), x.rank)
        geos = plan(x.shape, axes)
        minmax = mode in (ReduceMode.max, ReduceMode.min)
        is_min, is_prod = mode == ReduceMode.min, mode == ReduceMode.prod
        count = math.prod(x.shape[i] for i in axes)
        div = float(count) if mode == ReduceMode.mean else 1.0
        tmp = np.float32 if minmax else np.float64
        launches = [Launcher(int(g[0] * g[1] * g[2])) for g in geos]
        vx, vo = viewer(x), viewer(out)
        n_out = out.count()
        scatter = None if out.padding.is_zero else physical_index(out).reshape(-1)
        last = len(geos) - 1

        def fn(xbuf: np.ndarray, obuf: np.ndarray) -> None:
            cur = vx(xbuf)
            for k, (g, launch) in enumerate(zip(geos, launches)):
                if k < last:
                    dst = np.empty(_pass_size(g), tmp)
                elif scatter is None:
                    dst = vo(obuf)[:n_out]
                else:
                    dst = np.empty(n_out, np.float32)
                if minmax:
                    launch(reduce_minmax, dst, cur, g, is_min)
                else:
                    launch(reduce_sumprod, dst, cur, g, is_prod, div if k == last else 1.0)
                cur = dst
            if scatter is not None:
                vo(obuf)[scatter] = cur

        return fn
