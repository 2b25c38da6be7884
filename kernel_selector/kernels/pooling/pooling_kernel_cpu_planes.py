"""pooling_cpu_planes: the CPU engine's 2-D max / average pooling on plain bfyx planes, as separable passes over a
zero- (or -inf-) bordered copy of each plane, every pass one long straight loop.

Algorithm. Max and sum over a KY × KX window are separable: reduce along x first, then along y. Per (b, c) plane,
one thread task:

1. copy the plane into a bordered scratch plane P of Hp × Wp, Hp = (OH-1)·SY + (KY-1)·DY + 1 and
   Wp = (OW-1)·SX + (KX-1)·DX + 1 (exactly the extent the windows read), the border filled with -inf (max) or 0
   (average), so no later loop has a bounds test;
2. the x pass over P taken as one flat array: Hs[i] = reduce over kx of P[i + kx·DX], one loop per tap over all
   Hp·Wp positions (row ends compute values nobody reads: the price of a loop LLVM vectorizes);
3. the y pass, flat as well: V[i] = reduce over ky of Hs[i + ky·DY·Wp];
4. per output row, the strided pick V[oy·SY·Wp + ox·SX], the divisor (average, computed at build:
   :func:`~.pooling_kernel_cpu_fsv16.average_divisors`), the fused chain (:mod:`...common.cpu_epilogue`) and the
   store.

A window over the whole plane (global pooling) is one straight reduction instead. A stride-1 window whose output
planes are as large as the input's (the 3×3 pad-1 poolings of Inception and GoogLeNet modules) on unpadded data
needs no bordered copy at all (:func:`flat_passes`, :func:`_batch_flat`): each tap is one loop over a stack of
whole planes reading its neighbour at a fixed offset, masked where the neighbour leaves its row or plane (masks
built once per kernel); the same sums in the same order, so the same results to the bit, 1.5-3× faster
(192-1024 channels at 28², 14², 7², paired in one process). Max pooling over input rows
of at least ROWS_MIN_W columns runs row by row instead, y first and only where the outputs are
(:func:`_batch_rows`: per output row, its KY input rows reduced into one bordered row read straight from the
input, then the x taps at stride SX into the output row; 1.2-4.5× faster than the plane passes on 3×3 windows,
stride 1 or 2). Average pooling and narrow planes take the plane passes; with strides above 1 these do their x
and y passes at stride 1 and pick afterwards: up to SX·SY times the reduction work, still cheaper than short
rows (numba's loop overhead dominates rows of 7-28 columns: Inception-v2's 3×3 stride-1 average poolings on
14×14 and 7×7 planes ran 0.6-0.8 ms each as row loops, the tap by tap order of ``pooling_cpu_fsv16``). The same
separable order is the one of oneDNN's and Halide's pooling schedules; NaN inputs are skipped by max (``v > m``
is false), as ``pooling_cpu_fsv16`` does.

Since 2026-12-07 the windows most networks use (2 or 3 columns at stride 1 or 2 along x, on unit-pitch rows) take
none of the forms above unless they are stride-1 "same" windows: an output plane is one call of an LLVM IR kernel
that reads the input rows where they lie with masked vector loads (:mod:`.cpu_pooling_rows`, ROW_KERNEL); the forms
above remain for the other windows (wider, dilated or strided by 3 or more along x, or non-unit pitches).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import DataType, Format
from cldnn_py.ops import PoolingAttrs, PoolingMode

from ...common.cpu_epilogue import EMPTY, I0, I1, NJIT, chain_arrays, chain_span, fused_reason, operand_index
from ...common.cpu_fma_rate import full_rate_512
from ...common.cpu_launch import Launcher, viewer
from ...common.cpu_layout import row_map
from ...common.cpu_microkernel import W
from ...common.cpu_plane_copy import copy_plane
from ...common.pooling import pooling_window
from ...cpu_kernel_base import CPU, CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_2
from ...params import Params, SupportedKey
from ...selector import register
from .cpu_pooling_grid import pool_grid, pool_grid_tables, use_pool_grid
from .cpu_pooling_rows import pool_rows, use_row_kernel
from .cpu_pooling_same import RUN_VECTORS, pool_same_runs, same_tables
from .pooling_kernel_cpu_fsv16 import MODES, average_divisors

F32 = frozenset({DataType.f32})
BFYX = frozenset({Format.bfyx})
BATCH_FLOATS = 4096  # planes are stacked up to this many floats per pass (three such arrays stay in L1/L2)
TASKS = 32  # thread tasks of one call (dynamic scheduling), each a contiguous range of planes with its scratch row
AVG_ROWS = True  # strided average poolings with output rows at least ROWS_MIN_W wide run row by row (row_passes)
ROWS_MIN_W = 12  # max pooling over input rows at least this wide runs row by row (_batch_rows)
FLAT_BATCH_FLOATS = 8192  # flat_passes: planes are stacked up to this many floats per task (masks: 1 byte per tap)
POOL_GRID = True  # windows with stride 1 or 2 along x and short output rows as flat grids (cpu_pooling_grid)
MAX_EXTRA_WORK = 8  # separable passes may read at most this many times the taps of the direct window loops
SAME_KERNEL = True
"""Stride-1 "same" windows on unpadded bfyx planes (those :func:`flat_passes` takes) with no eltwise operand run the IR
kernel of :mod:`.cpu_pooling_same` (every tap one masked load at a fixed offset over the whole stack of planes)
instead of the flat passes. Inside Inception-v2 at batch 8 (paired, same process, 16 runs, 2-core Zen 4 with
AVX-512, 2026-12-07): its 3×3 average poolings 0.61-0.75× the time (192 × 28² 0.68 → 0.51 ms, 576 × 14² 0.59 →
0.36, 1024 × 7² 0.30 → 0.18), the 3×3 max one on 7×7 0.46×; the network 0.99×, GoogLeNet b8 and Inception-v2 b1
within the noise (their poolings are 1-3% of the run). onnxruntime's NCHWc poolings of the same layers: 0.22-0.43 ms."""
ROW_KERNEL = True
"""Windows the IR row kernel takes (:func:`.cpu_pooling_rows.use_row_kernel`: 2 or 3 columns, stride 1 or 2 along x)
run with it, one call per plane, unless the flat passes take them (stride-1 "same" windows: 1.28× slower by rows
on 7×7 planes, 1.06× on 14×14). Same-process A/B against the forms before it (2-core Zen 4, AVX-512, 2026-12-07,
paired medians of 25 runs of the kernel inside a small network): max 3×3 stride 2 on 8×64×111² 0.82×, 8×128×55²
0.67×, 8×256×27² 0.90×, 64×112² (pad 1) 0.84×, 480×28² 0.89×; max 2×2 stride 2 on 832×14² 0.84×; average 3×3
stride 2 (pad 1) on 8×24×56² 0.67×, 8×136×28² 0.89×; average 2×2 stride 2 on 8×128×56² 0.63×, 8×256×28² 0.88×,
8×512×14² 0.91×. In the zoo networks (``benchmarks/switch_ab.py ...ROW_KERNEL False``, the pooling kernels' summed
profiled time): SqueezeNet b8 5.26 → 3.86 ms, ShuffleNet b8 1.63 → 1.17, GoogLeNet b8 8.79 → 7.65, VGG-19 b1 3.04
→ 1.51, Inception-v2 b1 1.83 → 1.66, DenseNet-121 b1 0.45 → 0.35, AlexNet b1 0.21 → 0.14, ResNet-50 b1 unchanged
(0.27). False: the forms below for every window."""
ROW_KERNEL_LIMITS = (96, 8 << 20) if full_rate_512() else None
"""(input row width, input bytes of the batch): on a full-rate AVX-512 host (Zen 5, where the VM's memory is also
slower against its cores) the row kernel only takes inputs at most this wide and this large; None: no limit. Inside
networks on the 2-core Zen 5 VM (``/tmp``-style per-node A/B of ROW_KERNEL, 12 paired runs, 2026-12-07), the row
kernel against the forms below: SqueezeNet b8's 3×3 stride-2 max poolings on 64×111² (25 MB) 4.1 against 1.25 ms,
128×55² (12 MB) 1.24 against 0.62, 256×27² (6 MB) 0.41 against 0.26; Inception-v2's 64×112² 0.40 against 0.25,
ShuffleNet's 24×112² 0.16 against 0.07; but GoogLeNet's 192×55² 0.14 against 0.18, Inception-v2's 192×56² 0.15
against 0.18, DenseNet-121's, AlexNet's and ShuffleNet's 28-56-wide ones 0.6-0.7×. One plane alone runs at 20-42
GB/s either way; over a 25 MB batch the row kernel fell to 8 GB/s (its loop with the window as run-time values issues
fewer loads in flight). Zen 4 measured the opposite for the 25 MB case (0.82×, ROW_KERNEL above), hence the host
condition."""


@numba.njit(**NJIT)
def _fold(dst: np.ndarray, src: np.ndarray, s: int, n: int, is_max: bool) -> None:
    """dst[i] = max(dst[i], src[s + i]) (NaN in src skipped) or dst[i] += src[s + i], for i < n."""
    v = src[s:s + n]
    if is_max:
        for i in range(n):
            a = v[i]
            dst[i] = a if a > dst[i] else dst[i]
    else:
        for i in range(n):
            dst[i] += v[i]


@numba.njit(**NJIT)
def _whole(out: np.ndarray, o: int, x: np.ndarray, ibase: int, mi: np.ndarray, h: int, w: int, is_max: bool,
           div: float, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray, res: np.ndarray, r0: int,
           sc: np.ndarray) -> None:  # pragma: no cover
    """out[o] = the max or mean of one whole plane (rows of pitch mi[3]), then the chain."""
    rows, n_row = (1, h * w) if mi[3] == w else (h, w)
    m = np.float32(-np.inf) if is_max else np.float32(0.0)
    for r in range(rows):
        plane = x[ibase + r * mi[3]:ibase + r * mi[3] + n_row]
        for i in range(n_row):
            v = plane[i]
            if is_max:
                m = v if v > m else m
            else:
                m += v
    sc[0] = m if is_max else m / div
    if codes.shape[0] > 0:
        chain_span(sc, I0, I1, codes, fa, fb, res, r0, I0)
    out[o] = sc[0]


@numba.njit(**NJIT)
def _stack_chain(out: np.ndarray, o0: int, t0: int, t1: int, oh: int, ow: int, nc: int, codes: np.ndarray,
                 fa: np.ndarray, fb: np.ndarray, res: np.ndarray, mr: np.ndarray,
                 has_res: bool) -> None:  # pragma: no cover
    """The fused chain on the unpadded output planes t0 ≤ t < t1 stored from out[o0]: once over the whole stack,
    or row by row when it reads an operand."""
    if codes.shape[0] == 0:
        return
    if not has_res:
        chain_span(out, o0, (t1 - t0) * oh * ow, codes, fa, fb, res, I0, I0)
        return
    for t in range(t0, t1):
        for oy in range(oh):
            chain_span(out, o0 + ((t - t0) * oh + oy) * ow, ow, codes, fa, fb, res,
                       operand_index(mr, t // nc, t % nc, oy, I0), mr[4])


@numba.njit(**NJIT)
def _batch(out: np.ndarray, mo: np.ndarray, x: np.ndarray, mi: np.ndarray, t0: int, t1: int, geo: np.ndarray,
           is_max: bool, divs: np.ndarray, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray, res: np.ndarray,
           mr: np.ndarray, has_res: bool, sc: np.ndarray, pick: np.ndarray,
           sdivs: np.ndarray) -> None:  # pragma: no cover
    """Planes t0 ≤ t < t1 (t = b · C + c) stacked in the scratch row ``sc``, each Hp · Wp: the bordered copies,
    then the x and y passes flat over the whole stack (a plane's outputs read only its own rows), then the
    outputs row by row, or, when ``pick`` is given (the output planes unpadded: the stack's outputs contiguous), as
    one gather over the stack (output j of the stack from V[pick[j]], divided by ``sdivs[j]``) and the chain once
    per stack unless it reads an operand (ShuffleNet's 3×3 stride-2 average poolings on 14×14 outputs: one loop
    per stack instead of one per output row). ``geo`` = (C, H, W, OH, OW, Hp, Wp, KY, KX, SY, SX, PY, PX, DY,
    DX)."""
    nc, h, w, oh, ow, hp, wp = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5], geo[6]
    ky_n, kx_n, sy, sx, py, px, dy, dx = geo[7], geo[8], geo[9], geo[10], geo[11], geo[12], geo[13], geo[14]
    fill = np.float32(-np.inf) if is_max else np.float32(0.0)
    size = hp * wp
    tot = (t1 - t0) * size
    pp = sc[:tot]
    hs = sc[tot:2 * tot]
    vv = sc[2 * tot:3 * tot]
    for i in range(tot):  # 1. the border everywhere, then the interiors row by row
        pp[i] = fill
    n_y = min(h, hp - py)
    n_x = min(w, wp - px)
    for t in range(t0, t1):
        ibase = mi[0] + (t // nc) * mi[1] + (t % nc) * mi[2]
        copy_plane(pp, (t - t0) * size + py * wp + px, wp, x, ibase, mi, n_y, n_x)
    n_h = tot - (kx_n - 1) * dx  # 2. the x pass
    hd = hs[:n_h]
    for i in range(n_h):
        hd[i] = fill
    for kx in range(kx_n):
        _fold(hd, pp, kx * dx, n_h, is_max)
    n_v = (t1 - t0 - 1) * size + (oh - 1) * sy * wp + (ow - 1) * sx + 1  # 3. the y pass, up to the last output
    vd = vv[:n_v]
    for i in range(n_v):
        vd[i] = fill
    for ky in range(ky_n):
        _fold(vd, hs, ky * dy * wp, n_v, is_max)
    if pick.shape[0] > 0:  # 4'. the stack's outputs in one gather, then the chain
        m = (t1 - t0) * oh * ow
        o0 = mo[0] + (t0 // nc) * mo[1] + (t0 % nc) * mo[2]
        ov = out[o0:o0 + m]
        pk = pick[:m]
        if is_max:
            for j in range(m):
                ov[j] = vv[pk[j]]
        else:
            dd = sdivs[:m]
            for j in range(m):
                ov[j] = vv[pk[j]] / dd[j]
        _stack_chain(out, o0, t0, t1, oh, ow, nc, codes, fa, fb, res, mr, has_res)
        return
    for t in range(t0, t1):  # 4. pick, divide, chain, store
        b = t // nc
        c = t % nc
        obase = mo[0] + b * mo[1] + c * mo[2]
        for oy in range(oh):
            o = obase + oy * mo[3]
            src = (t - t0) * size + oy * sy * wp
            orow = out[o:o + ow]
            if is_max:
                for ox in range(ow):
                    orow[ox] = vv[src + ox * sx]
            else:
                dv = divs[oy]
                for ox in range(ow):
                    orow[ox] = vv[src + ox * sx] / dv[ox]
            if codes.shape[0] > 0:
                chain_span(out, o, ow, codes, fa, fb, res, operand_index(mr, b, c, oy, I0) if has_res else 0,
                           mr[4] if has_res else 0)


@numba.njit(**NJIT)
def _rows_max(seg: np.ndarray, x: np.ndarray, srcs: np.ndarray, k: int, xp: int, n: int) -> None:  # pragma: no cover
    """seg[i] = the max of x[srcs[j] + i·xp] over the k rows j (NaN skipped; -inf when k is 0), for i < n; two and
    three contiguous rows in one loop (a 3×3 window's case), others row by row."""
    fill = np.float32(-np.inf)
    if k == 0:
        for i in range(n):
            seg[i] = fill
    elif xp == 1 and k == 3:
        r0, r1, r2 = x[srcs[0]:srcs[0] + n], x[srcs[1]:srcs[1] + n], x[srcs[2]:srcs[2] + n]
        for i in range(n):
            m = fill
            a = r0[i]
            m = a if a > m else m
            a = r1[i]
            m = a if a > m else m
            a = r2[i]
            seg[i] = a if a > m else m
    elif xp == 1 and k == 2:
        r0, r1 = x[srcs[0]:srcs[0] + n], x[srcs[1]:srcs[1] + n]
        for i in range(n):
            m = fill
            a = r0[i]
            m = a if a > m else m
            a = r1[i]
            seg[i] = a if a > m else m
    else:
        for i in range(n):  # set from the first row, not folded into a fill: NaN becomes -inf
            a = x[srcs[0] + i * xp]
            seg[i] = a if a > fill else fill
        for j in range(1, k):
            for i in range(n):
                a = x[srcs[j] + i * xp]
                seg[i] = a if a > seg[i] else seg[i]


@numba.njit(**NJIT)
def _rows_sum(seg: np.ndarray, x: np.ndarray, srcs: np.ndarray, k: int, xp: int, n: int) -> None:  # pragma: no cover
    """seg[i] = the sum of x[srcs[j] + i·xp] over the k rows j (0 when k is 0), for i < n; three and two contiguous
    rows in one loop, others row by row."""
    zero = np.float32(0.0)
    if k == 0:
        for i in range(n):
            seg[i] = zero
    elif xp == 1 and k == 3:
        r0, r1, r2 = x[srcs[0]:srcs[0] + n], x[srcs[1]:srcs[1] + n], x[srcs[2]:srcs[2] + n]
        for i in range(n):
            seg[i] = r0[i] + r1[i] + r2[i]
    elif xp == 1 and k == 2:
        r0, r1 = x[srcs[0]:srcs[0] + n], x[srcs[1]:srcs[1] + n]
        for i in range(n):
            seg[i] = r0[i] + r1[i]
    else:
        for i in range(n):
            seg[i] = x[srcs[0] + i * xp]
        for j in range(1, k):
            for i in range(n):
                seg[i] += x[srcs[j] + i * xp]


@numba.njit(**NJIT)
def _batch_rows_avg(out: np.ndarray, mo: np.ndarray, x: np.ndarray, mi: np.ndarray, t0: int, t1: int,
                    geo: np.ndarray, divs: np.ndarray, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray,
                    res: np.ndarray, mr: np.ndarray, has_res: bool, sc: np.ndarray) -> None:  # pragma: no cover
    """Average pooling row by row, as :func:`_batch_rows` for max: per output row the KY input rows summed into
    one zero-bordered row R (:func:`_rows_sum`), then out[ox] = (sum over kx of R[ox·SX + kx·DX]) / divs[oy, ox],
    3-tap windows at stride 1 or 2 with a literal stride (vector loops); the chain per row. A function of its own,
    not a mode of :func:`_batch_rows`: one function with a branch per row (or with the x taps as called functions)
    ran 1.04-1.4× slower on both modes (paired, 2026-12-07)."""
    nc, h, w, oh, ow, wp = geo[0], geo[1], geo[2], geo[3], geo[4], geo[6]
    ky_n, kx_n, sy, sx, py, px, dy, dx = geo[7], geo[8], geo[9], geo[10], geo[11], geo[12], geo[13], geo[14]
    row = sc[:wp]
    n_x = min(w, wp - px)
    zero = np.float32(0.0)
    for i in range(px):
        row[i] = zero
    for i in range(px + n_x, wp):
        row[i] = zero
    seg = row[px:px + n_x]
    srcs = np.empty(ky_n, np.int64)
    taps3 = kx_n == 3 and dx == 1
    taps2 = kx_n == 2 and dx == 1
    for t in range(t0, t1):
        b = t // nc
        c = t % nc
        ibase = mi[0] + b * mi[1] + c * mi[2]
        obase = mo[0] + b * mo[1] + c * mo[2]
        for oy in range(oh):
            k = 0
            for ky in range(ky_n):
                iy = oy * sy - py + ky * dy
                if 0 <= iy < h:
                    srcs[k] = ibase + iy * mi[3]
                    k += 1
            _rows_sum(seg, x, srcs, k, mi[4], n_x)
            o = obase + oy * mo[3]
            orow = out[o:o + ow]
            dv = divs[oy]
            if taps3 and sx == 2:
                for ox in range(ow):
                    orow[ox] = (row[2 * ox] + row[2 * ox + 1] + row[2 * ox + 2]) / dv[ox]
            elif taps3 and sx == 1:
                for ox in range(ow):
                    orow[ox] = (row[ox] + row[ox + 1] + row[ox + 2]) / dv[ox]
            elif taps2 and sx == 2:  # DenseNet's 2×2 stride-2 transitions
                for ox in range(ow):
                    orow[ox] = (row[2 * ox] + row[2 * ox + 1]) / dv[ox]
            else:
                for ox in range(ow):
                    a = row[ox * sx]
                    for kx in range(1, kx_n):
                        a += row[ox * sx + kx * dx]
                    orow[ox] = a / dv[ox]
            if codes.shape[0] > 0:
                chain_span(out, o, ow, codes, fa, fb, res, operand_index(mr, b, c, oy, I0) if has_res else 0,
                           mr[4] if has_res else 0)


@numba.njit(**NJIT)
def _batch_rows(out: np.ndarray, mo: np.ndarray, x: np.ndarray, mi: np.ndarray, t0: int, t1: int,
                geo: np.ndarray, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray, res: np.ndarray, mr: np.ndarray,
                has_res: bool, sc: np.ndarray) -> None:  # pragma: no cover
    """Max pooling of planes t0 ≤ t < t1 row by row, y first and only where outputs are. Per output row: the KY
    input rows it reads reduced into one bordered row R of Wp (border columns -inf, input rows outside the plane
    skipped), read straight from the input with no bordered copy of the plane (:func:`_rows_max`); then the x taps
    at stride SX, out[ox] = max over kx of R[ox·SX + kx·DX], stored and the chain applied. Work per plane
    OH·W·KY + OH·OW·KX in two loops per output row, instead of the plane passes' Hp·Wp·(KX + KY + 2) (3.6-4× less
    on a 3×3 stride-2 window)."""
    nc, h, w, oh, ow, wp = geo[0], geo[1], geo[2], geo[3], geo[4], geo[6]
    ky_n, kx_n, sy, sx, py, px, dy, dx = geo[7], geo[8], geo[9], geo[10], geo[11], geo[12], geo[13], geo[14]
    row = sc[:wp]
    n_x = min(w, wp - px)
    for i in range(px):
        row[i] = -np.inf
    for i in range(px + n_x, wp):
        row[i] = -np.inf
    seg = row[px:px + n_x]
    srcs = np.empty(ky_n, np.int64)
    taps3 = kx_n == 3 and dx == 1
    for t in range(t0, t1):
        b = t // nc
        c = t % nc
        ibase = mi[0] + b * mi[1] + c * mi[2]
        obase = mo[0] + b * mo[1] + c * mo[2]
        for oy in range(oh):
            k = 0
            for ky in range(ky_n):
                iy = oy * sy - py + ky * dy
                if 0 <= iy < h:
                    srcs[k] = ibase + iy * mi[3]
                    k += 1
            _rows_max(seg, x, srcs, k, mi[4], n_x)
            o = obase + oy * mo[3]
            orow = out[o:o + ow]
            if taps3 and sx == 2:  # R holds no NaN: the first tap is taken as it is
                for ox in range(ow):  # a literal stride: LLVM's interleaved vector loads (2.7x the generic loop)
                    m = row[2 * ox]
                    a = row[2 * ox + 1]
                    m = a if a > m else m
                    a = row[2 * ox + 2]
                    orow[ox] = a if a > m else m
            elif taps3 and sx == 1:
                for ox in range(ow):
                    m = row[ox]
                    a = row[ox + 1]
                    m = a if a > m else m
                    a = row[ox + 2]
                    orow[ox] = a if a > m else m
            elif taps3:
                for ox in range(ow):
                    q = ox * sx
                    m = row[q]
                    a = row[q + 1]
                    m = a if a > m else m
                    a = row[q + 2]
                    orow[ox] = a if a > m else m
            else:
                for ox in range(ow):
                    m = row[ox * sx]
                    for kx in range(1, kx_n):
                        a = row[ox * sx + kx * dx]
                        m = a if a > m else m
                    orow[ox] = m
            if codes.shape[0] > 0:
                chain_span(out, o, ow, codes, fa, fb, res, operand_index(mr, b, c, oy, I0) if has_res else 0,
                           mr[4] if has_res else 0)


@numba.njit(**NJIT)
def _batch_flat(out: np.ndarray, x: np.ndarray, xo: int, oo: int, n: int, is_max: bool, xm: np.ndarray,
                ym: np.ndarray, dxs: np.ndarray, dys: np.ndarray, divs: np.ndarray, hs: np.ndarray) -> None:
    """One stack of whole planes, n floats at x[xo:] and out[oo:] (unpadded, same size in and out): the x taps
    (column offsets ``dxs``, valid where ``xm[tap]``) summed or maxed into ``hs``, then the y taps (element offsets
    ``dys``, valid where ``ym[tap]``) into the output, then the divisors (average). Each tap is one straight loop
    over the whole stack, reading its neighbour at a fixed offset (a masked tap adds nothing: the value the
    bordered planes' zeros or -inf give)."""
    fill = np.float32(-np.inf) if is_max else np.float32(0.0)
    zero = np.float32(0.0)
    for step in range(2):
        dst = hs[:n] if step == 0 else out[oo:oo + n]
        for i in range(n):
            dst[i] = fill
        offs = dxs if step == 0 else dys
        masks = xm if step == 0 else ym
        for tap in range(offs.shape[0]):
            d = offs[tap]
            lo = max(0, -d)
            hi = min(n, n - d)
            if hi <= lo:
                continue
            sv = x[xo + lo + d:xo + hi + d] if step == 0 else hs[lo + d:hi + d]
            dv = dst[lo:hi]
            mv = masks[tap, lo:hi]
            if is_max:
                for i in range(hi - lo):
                    a = sv[i]
                    dv[i] = a if (mv[i] and a > dv[i]) else dv[i]
            else:
                for i in range(hi - lo):
                    dv[i] += sv[i] if mv[i] else zero
    if not is_max:
        ov = out[oo:oo + n]
        dd = divs[:n]
        for i in range(n):
            ov[i] = ov[i] / dd[i]


@numba.njit(parallel=True, **NJIT)
def pool_planes(out: np.ndarray, mo: np.ndarray, x: np.ndarray, mi: np.ndarray, n_planes: int, geo: np.ndarray,
                per_batch: int, mode: int, divs: np.ndarray, whole: bool, rows: bool, codes: np.ndarray,
                fa: np.ndarray, fb: np.ndarray, res: np.ndarray, mr: np.ndarray, has_res: bool,
                scratch: np.ndarray, flat: bool, xm: np.ndarray, ym: np.ndarray, dxs: np.ndarray, dys: np.ndarray,
                pick: np.ndarray, sdivs: np.ndarray) -> None:  # pragma: no cover
    """``n_planes`` = B · C; ``geo`` as :func:`_batch` takes it; ``per_batch`` planes stacked at a time; ``mi`` /
    ``mo`` = (offset, b, f, y, x pitches); ``mode`` 0 max, 1 average, 2 average_no_padding; ``divs`` (OH, OW)
    divisors; ``whole``: global pooling; ``rows``: max pooling row by row (:func:`_batch_rows`); ``mr`` the
    chain operand's operand_map; ``scratch`` (G, 3 · per_batch · Hp · Wp, or Wp with ``rows``, or per_batch · H · W
    with ``flat``) float32: one row per task, G tasks each a contiguous range of planes. ``flat``: stride 1, the
    output as large as the input, both unpadded (:func:`flat_passes`): stacks of ``per_batch`` planes by
    :func:`_batch_flat` with its masks ``xm`` / ``ym`` and tap offsets ``dxs`` / ``dys``, then the chain once per
    stack, or row by row when it reads an operand. ``pick``: the plane passes' gather of the outputs (:func:`_batch`;
    empty: row by row). ``sdivs``: the divisors of a stack's outputs (:func:`stack_divisors`), for both."""
    nc, h, w = geo[0], geo[1], geo[2]
    is_max = mode == 0
    groups = scratch.shape[0]
    per = -(-n_planes // groups)
    for g in prange(groups):
        sc = scratch[g]
        end = min((g + 1) * per, n_planes)
        if whole:
            for t in range(g * per, end):
                b = t // nc
                c = t % nc
                _whole(out, mo[0] + b * mo[1] + c * mo[2], x, mi[0] + b * mi[1] + c * mi[2], mi, h, w, is_max,
                       divs[0, 0], codes, fa, fb, res, operand_index(mr, b, c, I0, I0) if has_res else 0, sc)
        elif flat:
            hw = h * w
            for t0 in range(g * per, end, per_batch):
                t1 = min(t0 + per_batch, end)
                n = (t1 - t0) * hw
                _batch_flat(out, x, mi[0] + t0 * hw, mo[0] + t0 * hw, n, is_max, xm, ym, dxs, dys, sdivs, sc)
                _stack_chain(out, mo[0] + t0 * hw, t0, t1, h, w, nc, codes, fa, fb, res, mr, has_res)
        elif rows:
            for t0 in range(g * per, end, per_batch):
                if is_max:
                    _batch_rows(out, mo, x, mi, t0, min(t0 + per_batch, end), geo, codes, fa, fb, res, mr, has_res,
                                sc)
                else:
                    _batch_rows_avg(out, mo, x, mi, t0, min(t0 + per_batch, end), geo, divs, codes, fa, fb, res, mr,
                                    has_res, sc)
        else:
            for t0 in range(g * per, end, per_batch):
                _batch(out, mo, x, mi, t0, min(t0 + per_batch, end), geo, is_max, divs, codes, fa, fb, res, mr,
                       has_res, sc, pick, sdivs)


def plane_geometry(params: Params) -> tuple[np.ndarray, np.ndarray, bool]:
    """(dims int64[8] = (B, C, H, W, OH, OW, Hp, Wp), win int64[10], whole) of a pooling's Params; Hp × Wp is the
    bordered plane the windows read; ``whole``: a global pooling (one reduction per plane)."""
    x, out = params.inputs[0], params.output
    k, s, pb, pe = pooling_window(params)
    a = params.attrs_as(PoolingAttrs)
    d = (1, 1) if a.global_pooling else tuple(a.dilation)
    win = np.array([k[0], k[1], s[0], s[1], pb[0], pb[1], pe[0], pe[1], d[0], d[1]], np.int64)
    n, c, h, w = x.shape
    oh, ow = out.shape[2], out.shape[3]
    hp = (oh - 1) * s[0] + (k[0] - 1) * d[0] + 1
    wp = (ow - 1) * s[1] + (k[1] - 1) * d[1] + 1
    mi = row_map(x)
    whole = oh == ow == 1 and tuple(k) == (h, w) and tuple(pb) == (0, 0) and d == (1, 1) and int(mi[4]) == 1
    return np.array([n, c, h, w, oh, ow, hp, wp], np.int64), win, whole


def row_passes(dims: np.ndarray, win: np.ndarray, whole: bool, mode: int) -> bool:
    """Whether a pooling runs row by row (:func:`_batch_rows`): max pooling, not global, over input rows of at
    least ROWS_MIN_W columns. Kernel times on the CPU engine (2-core Zen 4 VM, 3×3 max pooling, plane passes →
    rows): stride 2 on 64×111² 2.6 → 0.44-0.73 ms (onnxruntime 0.72), 192×56² 2.2 → 0.5, 480×28² 1.5 → 0.5,
    832×14² 0.66-0.84 → 0.41; stride 1 (pad 1) on 192×28² 0.68 → 0.47, 480×14² 0.55 → 0.47, 832×7² the same. Not:
    a 7-wide 2×2 stride-2 one (0.13 → 0.16 ms: two short loops per output row), hence the width. Average pooling
    with a stride (AVG_ROWS, since 2026-12-07, when the 3-tap and 2-tap x loops got literal strides: LLVM's
    interleaved vector loads) runs row by row as well (:func:`_batch_rows_avg`), paired against the plane passes:
    3×3 stride 2 on 64×112² 0.25×, 240×28² 0.62×, 1920×28² 0.67×, 480×14² 0.80×; 2×2 stride 2 on 128×56² 0.67×,
    256×28² 0.72-0.81×, 512×14² 0.94× alone but 1.5× inside DenseNet-121 at batch 8 (7-wide output rows), on 7×7
    inputs 1.16-1.31×: hence outputs at least ROWS_MIN_W wide. Inside the networks at batch 8: ShuffleNet's
    3×3 stride-2 ones 0.56× (24×56²) and 0.83× (136×28²), DenseNet's 2×2 stride-2 transitions 0.60× (128×56²),
    0.99× (256×28²). Stride-1 average windows keep the plane passes (measured 1.3-2× faster than rows on 56²
    planes) unless the flat passes take them."""
    if AVG_ROWS and mode != 0:  # strided average windows (stride-1 ones take the flat passes where they can)
        return not whole and (int(win[2]) > 1 or int(win[3]) > 1) and int(dims[5]) >= ROWS_MIN_W
    return mode == 0 and not whole and int(dims[3]) >= ROWS_MIN_W


def flat_passes(dims: np.ndarray, win: np.ndarray, whole: bool, mi: np.ndarray, mo: np.ndarray) -> bool:
    """Whether a pooling runs as flat stacks of planes (:func:`_batch_flat`): stride 1, output planes as large as
    the input's (a "same" window: the 3×3 pad-1 poolings of Inception and GoogLeNet modules), input and output
    unpadded bfyx. Every tap is then one loop over a stack of whole planes instead of loops over rows of 7-28
    columns or bordered copies of them, whose per-loop cost dominated: Inception-v2's 3×3 average poolings on
    192-576 × 28² / 14² planes ran 0.16-0.24 ms each in the network, onnxruntime's 0.06."""
    n, c, h, w, oh, ow = (int(v) for v in dims[:6])
    return (not whole and int(win[2]) == 1 and int(win[3]) == 1 and (oh, ow) == (h, w)
            and dense_planes(mi, c, h, w) and dense_planes(mo, c, h, w))


def flat_tables(dims: np.ndarray, win: np.ndarray, per_batch: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(xm, ym, dxs, dys) for :func:`_batch_flat` over stacks of ``per_batch`` planes of H × W: per x tap its
    element offset kx·DX − PX and where it lands inside the row; per y tap its offset (ky·DY − PY)·W and where it
    lands inside the plane."""
    h, w = int(dims[2]), int(dims[3])
    ky_n, kx_n, py, px, dy, dx = (int(win[i]) for i in (0, 1, 4, 5, 8, 9))
    col = np.tile(np.arange(w), h * per_batch)
    row = np.tile(np.repeat(np.arange(h), w), per_batch)
    ox = [kx * dx - px for kx in range(kx_n)]
    oy = [ky * dy - py for ky in range(ky_n)]
    xm = np.stack([(col + d >= 0) & (col + d < w) for d in ox])
    ym = np.stack([(row + d >= 0) & (row + d < h) for d in oy])
    return xm, ym, np.array(ox, np.int64), np.array([d * w for d in oy], np.int64)


def dense_planes(m: np.ndarray, c: int, h: int, w: int) -> bool:
    """Whether a (offset, b, f, y, x) pitch map is unpadded bfyx of C planes of H × W: consecutive planes
    contiguous, across images too."""
    return int(m[4]) == 1 and int(m[3]) == w and int(m[2]) == h * w and int(m[1]) == c * h * w


def plane_pick(dims: np.ndarray, win: np.ndarray, per_batch: int) -> np.ndarray:
    """The plane passes' gather (:func:`_batch`) for stacks of ``per_batch`` bordered planes of Hp × Wp: output
    (plane p, oy, ox) of a stack reads V at p·Hp·Wp + oy·SY·Wp + ox·SX."""
    oh, ow, hp, wp = (int(v) for v in dims[4:8])
    sy, sx = int(win[2]), int(win[3])
    one = (np.arange(oh)[:, None] * sy * wp + np.arange(ow)[None, :] * sx).reshape(-1)
    return (np.arange(per_batch)[:, None] * (hp * wp) + one[None, :]).reshape(-1).astype(np.int64)


def stack_divisors(divs: np.ndarray, per_batch: int) -> np.ndarray:
    """The (OH, OW) divisors repeated for a stack of ``per_batch`` output planes, float32."""
    return np.tile(divs.reshape(-1), per_batch).astype(np.float32)


@register
class PoolingKernelCpuPlanes(CpuKernelBase):
    """2-D pooling on the CPU engine for bfyx input and output (padded as they like), every attribute of the
    pooling primitive as ``pooling_ref`` has it: max / average / average_no_padding, kernel, stride, asymmetric
    pads, dilation, ceil mode, global pooling. Input (N, C, H, W) f32, output (N, C, OH, OW) f32. Fused ops:
    activations and one eltwise with a broadcastable operand. Threads: one numba task per (b, c) plane. Scratch:
    3 · Hp · Wp floats per plane (row by row: one row of Wp per task), allocated once per kernel.

    Refuses (the row kernel ``pooling_cpu_fsv16`` then takes it) windows whose separable passes would read more
    than MAX_EXTRA_WORK times the taps of direct window loops (large kernels with large strides, not global).
    """

    name = "pooling_cpu_planes"
    primitive = "pooling"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """CPU, f32, bfyx in and out, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=F32, output_dtypes=F32, input_formats=BFYX,
                            output_formats=BFYX)

    def validate(self, params: Params) -> str | None:
        """4-D, a known mode, separable passes not far above the direct work, a fused chain the epilogue takes."""
        x, out = params.inputs[0], params.output
        if x.rank != 4 or out.rank != 4:
            return f"input rank {x.rank} is not 4"
        if PoolingMode(params.attrs_as(PoolingAttrs).mode) not in MODES:
            return f"mode {params.attrs_as(PoolingAttrs).mode} unknown"
        dims, win, whole = plane_geometry(params)
        if not whole:
            oh, ow, hp, wp = (int(v) for v in dims[4:8])
            separable = hp * wp * (int(win[1]) + int(win[0]) + 3)
            direct = oh * ow * int(win[0]) * int(win[1])
            if separable > MAX_EXTRA_WORK * direct:
                return f"separable passes read {separable} values against {direct} window taps"
        return fused_reason(params)

    def priority(self, params: Params) -> int:
        """Ahead of the row kernel (``pooling_cpu_fsv16``, priority 3) whenever it validates."""
        return FORCE_PRIORITY_2

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output, [chain operand]) on raw buffers."""
        x, out = params.inputs[0], params.output
        dims, win, whole = plane_geometry(params)
        mi, mo = row_map(x), row_map(out)
        mode = MODES[PoolingMode(params.attrs_as(PoolingAttrs).mode)]
        divs = average_divisors(mode, int(dims[4]), int(dims[5]), int(dims[2]), int(dims[3]), win)
        codes, fa, fb, mr = chain_arrays(list(params.fused_ops), out)
        res_lay = next((lay for op in params.fused_ops for lay in op.extra_inputs), None)
        planes = int(dims[0] * dims[1])
        size = int(dims[6] * dims[7])
        per_batch = max(1, min(BATCH_FLOATS // size, -(-planes // TASKS)))
        geo = np.concatenate([dims[1:8], win[[0, 1, 2, 3, 4, 5, 8, 9]]]).astype(np.int64)
        launch = Launcher(planes * int(dims[2] * dims[3] if whole else 3 * size))
        flat = flat_passes(dims, win, whole, mi, mo)
        view_in, view_out = viewer(x), viewer(out)
        view_res = viewer(res_lay) if res_lay is not None else None
        if SAME_KERNEL and flat and res_lay is None:
            masks, offs, sdiv, period = same_tables(int(dims[2]), int(dims[3]), win, divs)
            n_el = planes * int(dims[2] * dims[3])
            runs = max(1, -(-n_el // (RUN_VECTORS * W)))
            launch_same = Launcher(n_el * int(win[0] * win[1]), chunk=1)

            def fn_same(*bufs: Any) -> None:
                launch_same(pool_same_runs, view_out(bufs[1]), int(mo[0]), view_in(bufs[0]), int(mi[0]), n_el, masks,
                            offs, sdiv, period, mode == 0, runs, codes, fa, fb)

            return fn_same

        limits = ROW_KERNEL_LIMITS
        small = limits is None or (int(dims[3]) <= limits[0] and 4 * planes * int(dims[2] * dims[3]) <= limits[1])
        if ROW_KERNEL and small and not flat and use_row_kernel(win, whole, mi, mo):
            divs_c = np.ascontiguousarray(divs, np.float32)
            groups = min(planes, TASKS)
            launch_rows = Launcher(planes * int(dims[4] * dims[5] * win[0] * win[1]))

            def fn_rows(*bufs: Any) -> None:
                res = view_res(bufs[2]) if view_res is not None else EMPTY
                launch_rows(pool_rows, view_out(bufs[1]), mo, view_in(bufs[0]), mi, planes, geo, mode == 0, divs_c,
                            codes, fa, fb, res, mr, res_lay is not None, groups)

            return fn_rows

        rows = row_passes(dims, win, whole, mode)
        if flat:
            hw = int(dims[2] * dims[3])
            per_batch = max(1, min(FLAT_BATCH_FLOATS // hw, -(-planes // TASKS)))
            xm, ym, dxs, dys = flat_tables(dims, win, per_batch)
            rows = False
        else:
            xm = ym = np.zeros((0, 0), np.bool_)
            dxs = dys = np.zeros(0, np.int64)
        need = int(dims[7]) if rows else (per_batch * int(dims[2] * dims[3]) if flat else 3 * per_batch * size)
        pick = np.zeros(0, np.int64)
        if not (rows or flat or whole) and dense_planes(mo, int(dims[1]), int(dims[4]), int(dims[5])):
            pick = plane_pick(dims, win, per_batch)
        sdivs = stack_divisors(divs, per_batch) if flat or pick.shape[0] else np.zeros(0, np.float32)
        # scratch rows kept by the kernel (CPU kernels run one at a time in a process): allocating them per call
        # page-faulted megabytes on every run of a 112x112 pooling
        scratch = np.empty((min(planes, TASKS), 1 if whole else need), np.float32)

        if POOL_GRID and not (whole or flat) and use_pool_grid(int(dims[5]), int(win[3]), int(mo[4])):
            gscratch, toff, ggeo, dgrid = pool_grid_tables(geo, divs, mode == 0, min(planes, TASKS))

            def fn_grid(*bufs: Any) -> None:
                res = view_res(bufs[2]) if view_res is not None else EMPTY
                launch(pool_grid, view_out(bufs[1]), mo, view_in(bufs[0]), mi, planes, geo, mode == 0, dgrid, codes,
                       fa, fb, res, mr, res_lay is not None, gscratch, toff, ggeo)

            return fn_grid

        def fn(*bufs: Any) -> None:
            res = view_res(bufs[2]) if view_res is not None else EMPTY
            launch(pool_planes, view_out(bufs[1]), mo, view_in(bufs[0]), mi, planes, geo, per_batch, mode, divs,
                   whole, rows, codes, fa, fb, res, mr, res_lay is not None, scratch, flat, xm, ym, dxs, dys, pick,
                   sdivs)

        return fn
