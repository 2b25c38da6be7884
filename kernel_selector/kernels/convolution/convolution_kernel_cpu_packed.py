"""convolution_cpu_packed: convolution as a packed-panel GEMM with the CPU engine's register-tiled micro-kernel.

``out_g (OC/g, OH·OW) = W_g (OC/g, C/g·KH·KW) · cols_g (C/g·KH·KW, OH·OW)`` per image and group, the oneDNN / BLIS
structure: the weights are the A operand, already packed in 16-row panels (``os_iyx_osv16``, a constant reorder
that propagate_constants folds at build time), the pixels are the vectorized columns, and every MR × NR tile of the
output is one call of the LLVM-IR micro-kernel (:mod:`kernel_selector.common.cpu_microkernel`) whose accumulators
stay in vector registers over the whole reduction. The B operand is the input itself for an unpadded bfyx 1×1
stride-1 convolution (no copy); a stride-1 k×k one with a bfyx output and no fused eltwise reads
zero-bordered copies of its input planes at fixed offsets (:mod:`.cpu_conv_grid`, implicit im2col); others the
patch matrix of :mod:`.cpu_im2col` (parallel, any format).

A dense 1×1 convolution of a 1×1 image is a GEMV per image instead (:mod:`.cpu_conv_gemv`); small dense layers
turn the product around (:mod:`.cpu_conv_oc`: 16 output channels in the vector lanes, pixels broadcast): a 1×1
stride-1 layer of at most a few million multiply-adds, and any grid or strided 1×1 layer with at most 256 output
pixels, along its output rows (ResNet-50's 3×3 layers at 7×7 0.62×, its stride-2 layers 0.8-0.87×). The images
of a batch share one parallel region (each with its own slot of im2col / grid / output scratch, up to
SCRATCH_BYTES in all; beyond it, groups of images in turn). A task is one column panel of NR pixels of one image
(and a range of row tiles when there are few panels): it packs the
panel's K × NR B values into a contiguous buffer (BLIS's packed B) and runs every row tile over it while it is in
L1/L2. Bias, relu / clamp and a residual sum are
applied in registers before the store (the micro-kernel's epilogue); any other fused op runs on the tile's rows
right after, while they are in L1 (:func:`~kernel_selector.common.cpu_epilogue.chain_span`). An output that is not
plain unpadded bfyx (padded, ``b_fs_yx_fsv16``), or a fused operand that is not pixel-contiguous, goes through a
temporary and the numba store of ``convolution_cpu_gemm``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import Format, Layout, Padding
from cldnn_py.ops import ConvolutionAttrs, conv_halo

from ...common import cpu_microkernel_oc
from ...common.cpu_epilogue import EMPTY, chain_arrays, chain_span, fake_quant_params, operand_map
from ...common.cpu_launch import CHUNK_ITERATIONS, Launcher
from ...common.cpu_layout import layout_offset, row_map
from ...common.cpu_microkernel import HSWISH, MR, NR, PANEL, SILU, micro_kernel, micro_kernel_rows, store_fence
from ...common.elementwise_numba import NJIT
from ...cpu_kernel_base import CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_2, FORCE_PRIORITY_3, FORCE_PRIORITY_5
from ...params import FusedOp, Params, SupportedKey
from ...selector import register
from . import cpu_conv_oc
from .convolution_kernel_cpu_gemm import DATA_FORMATS, _store
from .cpu_conv_common import (
    G_OH,
    G_OW,
    encode_fused,
    f32_key,
    f32_view,
    fused_buffers,
    geometry,
    tensor_desc,
    thin_grouped,
    validate_common,
)
from .cpu_conv_gemv import gemv_panels
from .cpu_conv_grid import grid_geometry, grid_to_output, in_place_offsets, output_chain, pad_planes, plain_grid_offsets
from .cpu_conv_oc import (
    alt_tile,
    oc_chunks,
    oc_row_tiles,
    oc_tiles,
    pair_rows,
    tile_of,
    use_channel_vectors,
    use_grouped_channel_vectors,
    use_oc_rows,
)
from .cpu_conv_pool import (
    conv_params,
    fused_pool,
    fused_pool_reason,
    oc_row_tiles_pool,
    pool_attrs,
    pool_divisors,
    pool_scratch,
    pool_window,
)
from .cpu_im2col import im2col

SCRATCH_BYTES = 48 << 20  # the im2col / grid / output scratch of the images that share one GEMM region
PLAIN_B_TAIL = True
"""The last column panel's tiles (fewer than NR valid columns) load their packed B rows plainly, masking only C and
the residual (cpu_microkernel, flags & 32): a 7×7 image's 4th panel has 1 valid column and, with every B load
masked (``vmaskmovps``, microcoded on AMD), cost as much as two whole panels."""
NOPACK_TILES = 16
"""A task with this many row tiles or fewer reads B in place instead of packing it (up to 64 output channels on
AVX2). Each tile after the first finds the panel's B rows in L1 or L2, and the copy costs more than the strided
reads it saves: same-process A/B on the 2-core Zen 4 (AVX2) against 4 tiles, isolated layers with bias and relu:
128 → 32 3×3 at 56×56 and 28×28 1.25-1.3× faster, 256 → 64 1×1 at 56×56 1.43×, 3 → 64 7×7 stride 2 1.22×,
64 → 64 3×3 at 56×56 1.1×, 1024 → 64 1×1 at 28×28 1.3×; networks on the CPU engine (batch 1): DenseNet-121 0.92×,
Inception-v2 0.93×, GoogLeNet 0.97×, ResNet-50, SqueezeNet and ShuffleNet 0.98-0.99×. Past 16 tiles packing wins
again (every tile reading a 14×14 layer's K = 1024 rows in place: 1.25× slower)."""
ROW_PANELS_EXTRA = 1.25
"""The padded grid's GEMM writes straight into the output rows (panels that never span two rows) when that takes at
most this many times the grid's column panels: the copy out of the grid cost 15-35% of such a layer (3 → 64, 3×3
stride 2 at 224²: 0.6 of 1.74 ms), a 56-wide row needs 4 panels of 16 for the grid's 3.6, a 7-wide one 1 for 0.6."""
FUSED_POOL_MIN_WIDTH = 2 * cpu_microkernel_oc.OC_PIXELS
"""A fused pooling (:mod:`.cpu_conv_pool`) only on convolution rows of at least this many pixels (two main
channel-vector tiles: 14 with AVX-512). On shorter rows the row tiles lose to the flat tiles a 1×1 layer otherwise
runs over the whole image: GoogLeNet b8's pooling of its 832 × 13×13 inception output, fused into the five
convolutions before it, saved 0.39 ms of pooling and cost 0.8 ms in them (512 -> 256 1×1 0.87 -> 1.21 ms); SqueezeNet
b8's poolings of its 55- and 27-wide fire outputs gained 0.47 and 0.18 ms (paired per-node medians, 2-core Zen 5,
2026-12-08)."""
FUSED_POOL_GRID = True
"""A fused pooling also on a k×k layer that would otherwise run the pixel-vector GEMM on the padded grid (its
channels fill under OC_ROWS_GRID_MIN_LANES of the row tiles' lanes: ShuffleNet's 24-channel stem): row tiles then.
ShuffleNet b8 (paired, 2-core Zen 5, 2026-12-08): its stem and pooling 2.56 + 0.42 → 2.18 ms, the network 0.94-0.97×
the time (``switch_ab.py ...FUSED_POOL_GRID False``, 12 runs; a per-node A/B, 16 runs); batch 1 0.41 + 0.12 → 0.50 ms,
the network within noise (1.01×)."""
OC_PREFETCH_X = True
"""Channel-vector tiles prefetch their input rows ahead (cpu_microkernel_oc.PREFETCH_X)."""
OC_PREFETCH_X_GRID = False
"""... also on k×k layers (the padded grid or the input's own halo, ``grid``). Off since 2026-12-08: a k×k layer's
input image is small (13×13 to 56×56 planes, in L2) and its patch rows are neighbouring rows of few channels, so
the prefetch 128 pixels ahead (rows further on) only took a load slot per k step. Paired same-process runs against
on (2-core Zen 5, 12-14 runs, outputs identical): SqueezeNet b8 0.986× the time (its 13×13 3×3 layers 1.13 →
1.05 ms, 0.68 → 0.63), GoogLeNet b1 0.985×, Inception-v2 b1 0.984×, DenseNet-121 b1 0.982×, ResNet-50 b1 1.002×
(noise). The prefetch along K (OC_PREFETCH_XK) stays: off, the same 13×13 layers ran 10% slower."""
OC_PREFETCH_W_MIN_BYTES = 512 << 10
"""Channel-vector tiles prefetch the next tile's weights (cpu_microkernel_oc.PREFETCH_W_NEXT) only for a layer whose
weights take at least this many bytes (those come from L3 or memory: ResNet-50's deep layers, 0.5-8 MB); smaller
ones stay in L2 after the first pass, and the prefetch only took a load slot per k step. Paired same-process runs
against 0 (every layer; 2-core Zen 5, 2026-12-08, two rounds, the VM noisy): SqueezeNet b8 0.990× and 0.991× the
time, ResNet-50 b1 0.989× and 0.973×, GoogLeNet b1 1.004×, DenseNet-121 b1 1.001×, Inception-v2 b1 0.980× and
1.036× (the noisiest)."""
OC_PREFETCH_XK = True
"""Channel-vector tiles also prefetch their input rows ahead along the reduction (cpu_microkernel_oc.PREFETCH_XK,
32 k steps). Paired same-process runs (2-core Zen 4, AVX-512, 2026-12-07, 16 runs each, against off; the VM in a
slow hour), two rounds where repeated: GoogLeNet b1 0.93× and 0.965× the time, ResNet-50 b8 0.94× and 1.00×,
ResNet-50 b1 0.995× and 0.973×, Inception-v2 b8 0.977×, SqueezeNet b8 0.983×. 64 steps measured 1.03× / 0.99×
(GoogLeNet b1, ResNet-50 b8), 16 steps 0.98× / 0.97×."""
OC_ROWS_PLAIN_GRID = True
"""Strided k×k layers on channel-vector row tiles read one zero-bordered plane per channel at a pixel stride of SX
and a row step of SY rows (:func:`~.cpu_conv_grid.plain_grid_offsets`) instead of the SY·SX stride phases the
pixel-vector GEMM needs (its vector loads want a phase's pixels contiguous; the row tiles broadcast theirs)."""
IN_PLACE_GRID = True
"""A dense k×k layer on channel-vector row tiles whose input already carries the zero halo its windows read (its
producer writes a padded output: passes/prepare_padding.py asks :func:`halo_read_in_place`) reads that input in place
at its real pitches (:func:`~.cpu_conv_grid.in_place_offsets`) instead of copying it into zero-bordered planes
(:func:`~.cpu_conv_grid.pad_planes`) first."""
ROWS_INTO_PADDED = True
"""A 1×1 stride-1 layer whose output is spatially padded (the zero halo its k×k consumers read in place) runs
channel-vector row tiles along the output rows (their row pitch is the padded one) on its input in place, instead of
the GEMM into a temporary and the numba store of ``convolution_cpu_gemm``. (The pixel-vector GEMM's row panels were
tried for the large ones: 1.3-1.4× their flat panels on ResNet-50's 56- and 28-wide layers, rows misaligned.)"""
ROWS_ANY = True
"""... of any size (False: only one that runs channel-vector tiles unpadded, :func:`~.cpu_conv_oc.use_channel_vectors`:
ResNet-50's 56×56 and 28×28 1×1 producers then keep a plain output and their 3×3 users copy)."""
ROWS_FROM_PADDED = True
"""A 1×1 stride-1 layer whose input is spatially padded (a producer padded for its k×k users: SqueezeNet's squeeze
layers feed a 1×1 and a 3×3 expand layer) runs channel-vector row tiles over the input's interior in place."""
OC_ROWS_RESIDUAL = True
"""Channel-vector row tiles (:func:`~.cpu_conv_oc.oc_row_tiles`) also for a layer that carries a residual sum (in
their register epilogue): ResNet's stride-2 projections and YOLO's 3×3 bottlenecks read in place instead of through
an im2col copy or the grid's GEMM."""
COLS_CHANNEL_VECTORS = True
"""Channel-vector tiles (:func:`~.cpu_conv_oc.use_channel_vectors`) also over the im2col patch matrix of a layer
neither the padded grid nor the row tiles take (since 2026-12-07): ResNet-50's two stride-2 projections that carry
the residual sum, 512 -> 1024 to 14x14 1.74 -> 1.32 ms and 1024 -> 2048 to 7x7 2.03 -> 1.66 (in-network profile,
AVX-512 Zen 4); the network 0.975 and 0.99 in paired same-process runs, networks with no layer changed 0.99-1.04
(the VM's noise that hour)."""
REGISTER_SILU = True
"""A SiLU or HardSwish right after the convolution (and its clamp / fake quantization) runs in the micro-kernels'
register epilogue (``cpu_microkernel.SILU`` / ``HSWISH``) instead of the fused chain after the tiles."""
PREFETCH_B = 64
"""flags & 64 for tiles that read B in place (the nopack tasks): the micro-kernel prefetches each B row one column
panel ahead, what the thread's next task reads (its K rows lie a whole image plane apart: more streams than the
hardware prefetchers follow); 0 turns it off (A/B measurements). Paired same-process runs, 2-core Zen 4 with
AVX-512 (2026-12-07): ResNet-50 batch 8 0.953× the time, SqueezeNet's 128 → 16 1×1 at 54×54 batch 8 alone 0.76×;
SqueezeNet and Inception-v2 b8 0.99-1.01×, ResNet-50, SqueezeNet, ShuffleNet, DenseNet-121 b1 1.00×."""
STREAM_C = 128
"""flags & 128: whole tiles store C with non-temporal stores (past the caches, no read for ownership) when
:func:`stream_ok`; 0 turns it off (A/B measurements). ResNet-50 at batch 8, paired same-process runs on the 2-core
Zen 4 with AVX-512 (2026-12-07): 0.947× the time, 0.976× with the fence after the call (:func:`fence_threads`)
(its 56×56 layers write 25 MB each: 64 → 256 5.7 → 4.7 ms, 128 → 512 at 28×28 0.93×); SqueezeNet and
Inception-v2 b8 unchanged (0.998×, 1.01×), batch 1 untouched (no output reaches STREAM_MIN_BYTES)."""
STREAM_MIN_BYTES = 8 << 20
"""... for outputs of at least this many bytes in one call (a quarter of the 32 MB L3: smaller ones are read back by
the next layer from the caches, which streaming would bypass)."""


def stream_ok(out: np.ndarray, rows: np.ndarray, n0: int, oc: int, npix: int, cnt: int, has_chain: bool) -> bool:
    """Whether the tiles of one call may store C past the caches (flags & 128): an output of at least
    STREAM_MIN_BYTES (``cnt`` images of ``oc`` rows of ``npix`` floats), no chain that reads C back after the
    tiles, and every row of C starting on a 64-byte line (the buffer, the offset of image ``n0`` and the row and
    image pitches of ``rows``, in floats), so that every whole tile's vector stores are aligned (non-temporal
    vector stores fault otherwise)."""
    off, ldc = int(rows[0] + n0 * rows[1]), int(rows[2])
    return (not has_chain and 4 * oc * npix * cnt >= STREAM_MIN_BYTES and out.ctypes.data % 64 == 0
            and off % 16 == 0 and ldc % 16 == 0 and int(rows[1]) % 16 == 0)


@numba.njit(parallel=True, **NJIT)
def fence_threads(n: int) -> None:  # pragma: no cover - numba
    """A memory fence on each of the ``n`` pool threads (``n`` = numba's thread count: one iteration each under
    numba's static schedule), after a GEMM that stored C non-temporally: those stores are weakly ordered, and the
    next kernel's threads read them. One fence per thread and call; a fence at the end of every task (one column
    panel) made ResNet-50 at batch 8 1.03× slower instead of 0.95×."""
    for _ in prange(n):
        store_fence()


KC = 256  # K block: a packed B block of KC x NR floats (32 KB for NR = 32) stays in L1 (BLIS's kc)

@numba.njit(parallel=True, **NJIT)
def _gemm_tiles(wp: np.ndarray, k: int, rtab: np.ndarray, ocg: int, b: np.ndarray, b_off: int, b_grp: int,
                ldb: int, koff: np.ndarray, npix: int, splits: int, c: np.ndarray, c_off: int, ldc: int,
                bias: np.ndarray, has_bias: int, res: np.ndarray, r_off: int, r_f: int, clamp: np.ndarray,
                flags: int, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray, rest: np.ndarray, q_off: int,
                q_f: int, q_p: int, n_img: int, b_img: int, c_img: int, r_img: int, q_img: int,
                nopack_tiles: int, rp: int, rows: int, gw: int, cw: int,
                shuf: int) -> None:  # pragma: no cover - numba
    """``n_img`` images in one parallel region (image i's B, C, residual and chain operand start ``b_img``,
    ``c_img``, ``r_img``, ``q_img`` further than image 0's: one region for a batch instead of one per image, and
    more panels to share among the threads on 7×7 layers). Per image: for every column panel (NR pixels) and
    each of its ``splits`` row ranges, pack the panel's B rows
    into a contiguous K × NR buffer (BLIS's packed B: one stream instead of K rows a whole image apart, measured
    170-380 → 290-420 GFLOP/s on ResNet-50's shapes), then run the micro-kernel with its register epilogue on every
    row tile of the range, then the rest of the fused chain (``codes``, :func:`chain_span`) on the tile's rows. A
    task with at most ``nopack_tiles`` row tiles packs nothing: its tiles read B in place over the whole K (strided
    rows, or the rows ``koff`` points at through :data:`micro_kernel_rows`): for up to NOPACK_TILES tiles the copy
    cost more than it saved.

    ``rtab`` (T, 2): group and first output channel of each row tile (MR rows inside one 16-row weight panel),
    sorted by group; B row r of group g, pixel p is ``b[b_off + g * b_grp + r * ldb + p]``, or
    ``b[b_off + g * b_grp + koff[r] + p]`` when ``koff`` is not empty (the padded grid, :mod:`.cpu_conv_grid`);
    output channel o's row starts at ``c_off + o * ldc``. Register epilogue (cpu_microkernel): bias when
    ``has_bias``, the residual of channel o at ``res[r_off + o * r_f + p]`` when ``r_off >= 0``, the clamps of
    ``clamp`` selected by ``flags``. The chain's eltwise operand of (o, pixel p) is
    ``rest[q_off + o * q_f + p * q_p]``.

    Row panels (``rp`` > 0, the padded grid of :mod:`.cpu_conv_grid` written straight into the output): the
    output has ``rows`` rows of ``npix`` columns, each split into ``rp`` panels of at most NR columns (none spans two
    rows); column x of row y reads B at grid pixel ``y * gw + x`` and writes C (and reads the residual and the chain
    operand) at pixel ``y * cw + x``. With ``rp`` = 0 pixel p is p in both.

    ``shuf`` > 0: a channel shuffle of ``shuf`` groups (= the convolution's groups) fused after the chain (no
    residual, no chain operand): output channel o of group g is stored as channel (o − g·ocg)·shuf + g, so a tile's
    rows land ``shuf`` channels apart (row pitch shuf·ldc)."""
    nt = rtab.shape[0]
    nb = rows * rp if rp > 0 else (npix + NR - 1) // NR
    for task in prange(n_img * nb * splits):
        part = task % splits
        jb = (task // splits) % nb
        im = task // (splits * nb)
        if rp > 0:
            x0 = (jb % rp) * NR
            cnt = min(NR, npix - x0)
            p0 = (jb // rp) * gw + x0  # B's grid pixel
            pc = (jb // rp) * cw + x0  # C's pixel
        else:
            p0 = jb * NR
            cnt = min(NR, npix - p0)
            pc = p0
        t_lo, t_hi = nt * part // splits, nt * (part + 1) // splits
        # few row tiles share the panel: read B where it lies (the copy would cost more than it saves)
        nopack = t_hi - t_lo <= nopack_tiles
        kb = k if nopack else KC
        bp = np.empty(0 if nopack else min(k, KC) * NR, np.float32)
        for k0 in range(0, k, kb):  # K blocks: the packed B block (KC x NR) stays in L1 for every row tile
            kc = min(kb, k - k0)
            last = k0 + kc == k
            packed_g = -1
            for t in range(t_lo, t_hi):
                g = rtab[t, 0]
                r0 = rtab[t, 1]
                lo = max(g * ocg - r0, 0)  # the tile's rows inside group g
                hi = min((g + 1) * ocg - r0, MR)
                # the tile's first output row and row pitch: channel r0 .. r0 + MR - 1, or their shuffled places
                c_row = (r0 - g * ocg) * shuf + g if shuf > 0 else r0
                ldc_t = ldc * shuf if shuf > 0 else ldc
                a_off = (r0 // PANEL) * k * PANEL + k0 * PANEL + r0 % PANEL  # (k0 = 0 when nothing is packed)
                if nopack:
                    src0 = b_off + im * b_img + g * b_grp + p0
                    c0 = c_off + im * c_img + c_row * ldc + pc
                    r_at = r_off + im * r_img + r0 * r_f + pc if r_off >= 0 else -1
                    if koff.shape[0]:
                        micro_kernel_rows(wp, a_off, b, src0, koff, 0, c, c0, ldc_t, k, cnt, lo, hi, bias,
                                          r0 if has_bias else -1, res, r_at, r_f, clamp, flags & ~32)
                    else:
                        micro_kernel(wp, a_off, b, src0, ldb, c, c0, ldc_t, k, cnt, lo, hi, bias,
                                     r0 if has_bias else -1, res, r_at, r_f, clamp, flags & ~32)
                elif g != packed_g:
                    src0 = b_off + im * b_img + g * b_grp + p0
                    for r in range(kc):
                        s_r = src0 + (koff[k0 + r] if koff.shape[0] else (k0 + r) * ldb)
                        if cnt == NR:  # a whole panel row: a fixed count, NR / W vector moves
                            for j in range(NR):
                                bp[r * NR + j] = b[s_r + j]
                        else:
                            for j in range(cnt):
                                bp[r * NR + j] = b[s_r + j]
                    packed_g = g
                if not nopack:
                    micro_kernel(wp, a_off, bp, 0, NR, c, c_off + im * c_img + c_row * ldc + pc, ldc_t, kc, cnt,
                                 lo, hi, bias, r0 if has_bias and last else -1, res,
                                 r_off + im * r_img + r0 * r_f + pc if r_off >= 0 and last else -1, r_f, clamp,
                                 (flags if last else flags & 32) | (4 if k0 > 0 else 0))
                if codes.shape[0] and last:
                    for i in range(lo, hi):
                        o = r0 + i
                        chain_span(c, c_off + im * c_img + c_row * ldc + i * ldc_t + pc, cnt, codes, fa, fb, rest,
                                   q_off + im * q_img + o * q_f + pc * q_p, q_p)


def shuffle_groups(params: Params) -> int:
    """The groups of a channel shuffle fused last into the convolution (passes/fusing/fuse_shuffle_channels.py), or 0
    when there is none."""
    ops = params.fused_ops
    if not ops or ops[-1].kind != "shuffle_channels":
        return 0
    return int(ops[-1].attrs.group)  # type: ignore[attr-defined]


def row_splits(n_tiles: int, n_panels: int, threads: int) -> int:
    """Row ranges per column panel: 1 (each task packs its panel once) unless there are fewer panels than threads
    (a 7×7 image has 2), then enough ranges to give every thread a task (each range packs the panel again)."""
    return max(1, min(n_tiles, -(-threads // n_panels)))


def row_panels(oh: int, ow: int, npg: int) -> int:
    """Column panels per output row when the padded grid's GEMM (``npg`` grid pixels) should write the output rows
    itself: ceil(OW / NR) where OH of those rows take at most ROW_PANELS_EXTRA times the grid's panels, else 0."""
    rp = -(-ow // NR)
    return rp if oh * rp <= ROW_PANELS_EXTRA * -(-npg // NR) else 0


def split_chain(ops: list[FusedOp], out: Layout,
                blocked: bool = False) -> tuple[np.ndarray, int, int, list[FusedOp]]:
    """The head of a fused chain that the micro-kernel applies in registers, and the rest: (bounds float32[16]: the
    two clamps' [lo, hi] then the two fake quantizations' (a, b, lo, hi, c, d); flags (bit 0: first clamp, bit 1:
    second clamp, bit 3: first fake quantization, bit 4: second, SILU / HSWISH: a SiLU / HardSwish); index in
    ``ops`` of a residual sum it takes or -1; the remaining ops). The head is [relu|clamp] [fake quantization]
    [SiLU|HardSwish] [sum of a pixel-contiguous operand] [relu|clamp] [fake quantization], each part optional, in
    that order; a fake quantization is the four activations linear, round, clamp, linear that a QDQ pair becomes.
    ``blocked``: the output is b_fs_yx_fsv16 and the residual must be a b_fs_yx_fsv16 operand of the output's own
    (N, C, H, W) (16 channels of a pixel contiguous, no broadcast) instead of a pixel-contiguous plain one."""
    bounds = np.array([0.0, np.inf, 0.0, np.inf] + [0.0] * 12, np.float32)
    flags, res_at, stage, i = 0, -1, 0, 0
    _, _, oh, ow = out.dims4
    while i < len(ops):
        op = ops[i]
        clip = _clamp_of(op)
        fq = fake_quant_params(ops[i:i + 4])
        if clip is not None and stage in (0, 3):
            slot = 0 if stage == 0 else 2
            bounds[slot:slot + 2] = clip
            flags |= 1 if stage == 0 else 2
            stage = 1 if stage == 0 else 4
        elif fq is not None and stage in (0, 1, 3, 4):
            at = 4 if stage < 2 else 10
            bounds[at:at + 6] = fq
            flags |= 8 if stage < 2 else 16
            stage = 2 if stage < 2 else 5
            i += 3
        elif REGISTER_SILU and _register_act(op) and stage in (0, 1, 2) and not flags & (SILU | HSWISH):
            flags |= _register_act(op)
            stage = 2
        elif op.kind == "eltwise" and op.elt().mode == "sum" and stage in (0, 1, 2) and \
                (_blocked_operand(op.extra_inputs[0], out) if blocked else
                 _flat_operand(operand_map(op.extra_inputs[0], out), oh, ow, contiguous=True)):
            res_at, stage = i, 3
        else:
            break
        i += 1
    return bounds, flags, res_at, ops[i:]


def _register_act(op: FusedOp) -> int:
    """The register epilogue's flag for ``op``: SILU for a swish with a = 1 (what x · Sigmoid(x) fuses into), HSWISH
    for a hard_swish, else 0."""
    if op.kind != "activation":
        return 0
    act = op.act()
    if act.func == "swish" and float(act.a) == 1.0:
        return SILU
    return HSWISH if act.func == "hard_swish" else 0


def _clamp_of(op: FusedOp) -> tuple[float, float] | None:
    """(lo, hi) of a relu or clamp activation, else None."""
    if op.kind != "activation":
        return None
    act = op.act()
    if act.func == "relu":
        return 0.0, float("inf")
    return (float(act.a), float(act.b)) if act.func == "clamp" else None


def row_tiles(oc: int, groups: int) -> np.ndarray:
    """int64 (T, 2) [group, first output channel] of every MR-row tile of every group: tiles start on multiples of
    MR (so none crosses a 16-row weight panel) and a tile shared by two groups appears once per group."""
    ocg = oc // groups
    rows = [(g, r) for g in range(groups) for r in range(g * ocg // MR * MR, (g + 1) * ocg, MR)]
    return np.array(rows, np.int64).reshape(-1, 2)


def _blocked_operand(lay: Layout, out: Layout) -> bool:
    """True when ``lay`` is a b_fs_yx_fsv16 operand of the output's (N, C, H, W), no feature padding before its first
    channel that is not whole blocks (a residual the blocked tiles read 16 channels of a pixel at a time)."""
    return (lay.format == Format.b_fs_yx_fsv16 and out.format == Format.b_fs_yx_fsv16 and lay.rank == 4
            and lay.dims4 == out.dims4 and lay.padding.lower[1] % 16 == 0)


def _flat_operand(m: np.ndarray, oh: int, ow: int, contiguous: bool = False) -> bool:
    """True when an operand map (cpu_epilogue.operand_map) of a plain output reaches pixel p = y·OW + x of a channel
    at a fixed step (no blocked dimension, y pitch = OW × x pitch, or a single row); with ``contiguous``, at step 1
    with a per-channel pitch (no broadcast over b or f)."""
    flat = bool((m[5:9] == 1).all() and (oh == 1 or m[3] == ow * m[4]))
    if contiguous:
        return flat and m[4] == 1 and m[2] > 0
    return flat


def shape_of(params: Params) -> tuple[Any, ...]:
    """(attrs, geometry, input, weights and output layouts, N, C, H, W, OC, C/groups, KH, KW, groups, OC/groups,
    K = C/groups·KH·KW, OH, OW, OH·OW) of a layer."""
    a = params.attrs_as(ConvolutionAttrs)
    geo = geometry(params)
    x_lay, w_lay, out_lay = params.inputs[0], params.inputs[1], params.output
    n, c, h, wd = x_lay.dims4
    oc, icg, kh, kw = w_lay.shape
    g = int(a.groups)
    oh, ow = int(geo[G_OH]), int(geo[G_OW])
    return a, geo, x_lay, w_lay, out_lay, n, c, h, wd, oc, icg, kh, kw, g, oc // g, icg * kh * kw, oh, ow, oh * ow


@dataclasses.dataclass(frozen=True)
class Form:
    """How :class:`ConvolutionKernelCpuPacked` runs one layer (decided from its Params alone, at build time).

    ``params``: the layer's Params without a fused channel shuffle (``shuf`` its groups, or 0); ``direct``: the B
    operand is the input in place (unpadded bfyx 1×1 stride 1); ``direct_out``: the tiles store into the output in
    place (bfyx, contiguous channel planes); ``one_pixel``: a GEMV per image; ``oc_form``: channel-vector tiles over
    the input or the im2col patch matrix (:func:`~.cpu_conv_oc.oc_tiles`); ``grid``: a k×k layer on the padded grid
    (:mod:`.cpu_conv_grid`), ``rp`` its row panels, ``grid_chain`` the whole chain in its tiles; ``oc_rows``:
    channel-vector row tiles (:func:`~.cpu_conv_oc.oc_row_tiles`), over the grid, a strided 1×1 input in place or
    (``rows_out``) a 1×1 stride-1 input in place into a spatially padded output, or (``rows_in``) a 1×1 stride-1
    layer's spatially padded input in place; ``plain_grid``: strided row tiles
    read one zero-bordered plane (OC_ROWS_PLAIN_GRID); ``in_place``: the row tiles read the input's own zero halo
    (IN_PLACE_GRID), no copy; ``pool``: the pooling fused last (:mod:`.cpu_conv_pool`; ``params`` are then the
    convolution's alone, :func:`~.cpu_conv_pool.conv_params`), or None."""

    params: Params
    shuf: int
    direct: bool
    direct_out: bool
    one_pixel: bool
    oc_form: bool
    grid: bool
    rp: int
    grid_chain: bool
    oc_rows: bool
    rows_out: bool
    rows_in: bool
    plain_grid: bool
    in_place: bool
    pool: FusedOp | None = None


def form_of(params: Params) -> Form:
    """The :class:`Form` of a layer (the rules in the comments below; the module switches read now)."""
    pool = fused_pool(params)  # a pooling fused last: the form is the convolution's own (cpu_conv_pool)
    if pool is not None:
        params = conv_params(params)
    shuf = shuffle_groups(params)  # a fused channel shuffle: the tiles store their rows at shuffled places
    if shuf:
        params = dataclasses.replace(params, fused_ops=list(params.fused_ops)[:-1])
    a, _, x_lay, _, out_lay, _, _, h, wd, oc, icg, kh, kw, g, ocg, k, oh, ow, npix = shape_of(params)
    flat_in = x_lay.format == Format.bfyx and all(v == 0 for v in x_lay.padding.lower[2:] + x_lay.padding.upper[2:])
    direct = (flat_in and kh == kw == 1 and a.stride == (1, 1) and a.pad == (0, 0) and (oh, ow) == (h, wd))
    ops = list(params.fused_ops)
    _, _, res_at, rest = split_chain(ops, out_lay)
    _, _, m = chain_arrays(rest, out_lay)[1:]
    elt_rest = any(op.kind == "eltwise" for op in rest)
    # a bfyx output whose channel planes are contiguous (padding in b and f only: a concatenation's slice)
    # takes the tiles in place: channel o of image n at out_off + n * out_b + o * out_f
    spatial_pad = any(out_lay.padding.lower[2:] + out_lay.padding.upper[2:])
    direct_out = out_lay.format == Format.bfyx and not spatial_pad and (not elt_rest or _flat_operand(m, oh, ow))
    # a dense 1x1 convolution of a 1x1 image (squeeze-and-excitation, classifiers): a GEMV per image
    one_pixel = direct and direct_out and npix == 1 and g == 1 and not shuf
    # a small dense one: channel-vector tiles read straight from the input planes and the weight panels
    # (cpu_conv_oc); grouped ones only where AVX-512's 32-column panels would run half empty (Winograd's 36
    # products at 14x14): elsewhere they measured 1.1-1.7x slower that way (ShuffleNet's, Winograd's on AVX2)
    oc_form = direct and direct_out and not one_pixel and not shuf and (
        use_channel_vectors(oc, k, npix) if g == 1 else use_grouped_channel_vectors(g, ocg, k, npix))
    # stride 1, k×k, a plain output, no residual: the padded grid instead of an im2col copy
    # (a rest of activations only runs on the grid's rows: the operand-free part of the epilogue; YOLO's SiLU)
    # (strided: stride phases; a strided 1x1 keeps im2col, whose patch matrix is smaller than the phases)
    sy, sx = int(a.stride[0]), int(a.stride[1])
    grid = not direct and not shuf and (sy == sx == 1 or kh * kw > 1) and out_lay.format == Format.bfyx
    # a 1x1 stride-1 layer on a spatially padded bfyx input (a producer padded for its k×k users, prepare_padding):
    # row tiles over the input's interior in place (ROWS_FROM_PADDED), no copy into planes
    one_by_one = kh == kw == 1 and a.stride == (1, 1) and tuple(a.pad) == tuple(a.pad_end) == (0, 0) and \
        tuple(a.dilation) == (1, 1) and (oh, ow) == (h, wd)
    rows_ok = (g == 1 and not shuf and out_lay.format == Format.bfyx and (res_at < 0 or OC_ROWS_RESIDUAL)
               and all(op.kind == "activation" for op in rest))  # what channel-vector row tiles take
    rows_in = x_lay.format == Format.bfyx and not flat_in and one_by_one and ROWS_FROM_PADDED and rows_ok
    grid = grid and not rows_in
    simple_rest = res_at < 0 and all(op.kind == "activation" for op in rest)
    npg = grid_geometry(oh, ow, kh, kw, a.dilation[0], a.dilation[1], icg, sy, sx)[2] if grid else 0
    # the grid's GEMM writes the output rows in place (no grid scratch, no copy out) where row panels cost at
    # most ROW_PANELS_EXTRA times the grid's panels
    rp = row_panels(oh, ow, npg) if grid else 0
    # a residual sum or an eltwise rest (YOLO's bottlenecks: conv, SiLU, + shortcut) only with row panels, which
    # address the operands at the output's own pixels (the copy out of the grid applies activations only)
    grid = grid and (simple_rest or (rp > 0 and direct_out))
    rp = rp if grid else 0
    grid_chain = grid and not simple_rest  # the whole rest of the chain runs in the tiles
    # a small dense output from the padded grid or a strided 1x1 read in place: channel-vector tiles along its rows
    strided_1x1 = (flat_in and kh == kw == 1 and not direct and tuple(a.pad) == tuple(a.pad_end) == (0, 0)
                   and tuple(a.dilation) == (1, 1))
    oc_rows = rows_ok and use_oc_rows(oc, npix, grid, strided_1x1)
    # a fused pooling runs on row tiles: a 1x1 layer that runs flat channel-vector tiles reads its rows in place
    # (the same micro-kernels); layers the pixel-vector GEMM runs stay unfused (validate refuses them)
    oc_rows = oc_rows or (pool is not None and rows_ok and (oc_form or (FUSED_POOL_GRID and grid)))
    # a 1x1 stride-1 layer into a spatially padded output (the zero halo of a k×k consumer that reads it in place,
    # passes/prepare_padding.py): row tiles along the output rows instead of a temporary and a numba store
    rows_out = direct and spatial_pad and ROWS_INTO_PADDED and rows_ok and (
        ROWS_ANY or use_channel_vectors(oc, k, npix))
    oc_rows = oc_rows or rows_out or rows_in
    # strided row tiles broadcast their pixels (no vector loads along the row): they read one zero-bordered plane
    # per channel at a pixel stride of SX and a row step of SY rows instead of SY·SX stride phases, whose
    # de-interleaving copy cost 2.7x the plain copy per byte (OC_ROWS_PLAIN_GRID)
    plain_grid = grid and oc_rows and (sy > 1 or sx > 1) and OC_ROWS_PLAIN_GRID
    # the input's own padding covers every tap (a producer padded for this layer by prepare_padding): no copy
    in_place = grid and oc_rows and IN_PLACE_GRID and x_lay.format == Format.bfyx and covers_halo(params)
    # the im2col patch matrix (a strided or padded layer that neither the grid nor the row tiles take: ResNet-50's
    # stride-2 projections, which carry the residual sum) read by channel-vector tiles like an input in place
    if COLS_CHANNEL_VECTORS and not (direct or grid or oc_rows or shuf) and direct_out and g == 1:
        oc_form = use_channel_vectors(oc, k, npix)
    return Form(params, shuf, direct, direct_out, one_pixel, oc_form, grid, rp, grid_chain, oc_rows, rows_out,
                rows_in, plain_grid, in_place, pool)


def input_halo(params: Params) -> tuple[int, int, int, int]:
    """(before y, after y, before x, after x): the input rows and columns outside the tensor that the layer's windows
    read (:func:`cldnn_py.ops.conv_halo`)."""
    a = params.attrs_as(ConvolutionAttrs)
    _, _, h, w = params.inputs[0].dims4
    _, _, kh, kw = params.inputs[1].shape
    geo = geometry(params)
    (by, ay), (bx, ax) = conv_halo((h, w), (kh, kw), (int(geo[G_OH]), int(geo[G_OW])),
                                   (int(a.stride[0]), int(a.stride[1])), (int(a.dilation[0]), int(a.dilation[1])),
                                   (int(a.pad[0]), int(a.pad[1])))
    return by, ay, bx, ax


def oc_prefetch_flags(grid: bool, w_bytes: int = 1 << 62) -> int:
    """The prefetch flags of a layer's channel-vector tiles (:mod:`~kernel_selector.common.cpu_microkernel_oc`):
    PREFETCH_W_NEXT when the layer's weights take ``w_bytes`` >= OC_PREFETCH_W_MIN_BYTES; PREFETCH_X when
    OC_PREFETCH_X, on a k×k layer (``grid``: the padded grid or the input's own halo) only when OC_PREFETCH_X_GRID
    too; PREFETCH_XK when OC_PREFETCH_XK. Read when the kernel is built."""
    x_ahead = OC_PREFETCH_X and (OC_PREFETCH_X_GRID or not grid)
    w_next = int(cpu_microkernel_oc.PREFETCH_W_NEXT) if w_bytes >= OC_PREFETCH_W_MIN_BYTES else 0
    return (w_next | (cpu_microkernel_oc.PREFETCH_X if x_ahead else 0)
            | (cpu_microkernel_oc.PREFETCH_XK if OC_PREFETCH_XK else 0))


def covers_halo(params: Params) -> bool:
    """True when the padding of the layer's input (rows and columns of a bfyx layout around each plane) reaches
    every input position its windows read outside the tensor (:func:`input_halo`); by the layout convention a padded
    region holds zeros (buffers are zero-filled, producers write only the interior)."""
    by, ay, bx, ax = input_halo(params)
    lo, hi = params.inputs[0].padding.lower, params.inputs[0].padding.upper
    return lo[2] >= by and hi[2] >= ay and lo[3] >= bx and hi[3] >= ax


def halo_read_in_place(params: Params) -> tuple[int, int, int, int] | None:
    """(before y, after y, before x, after x): the halo this kernel reads straight from its input, with no copy,
    once the input carries that much spatial padding: a dense k×k layer on channel-vector row tiles (IN_PLACE_GRID);
    (0, 0, 0, 0) for a 1×1 stride-1 layer that reads a padded input in place (ROWS_FROM_PADDED); None for a layer
    that would copy a padded input or read it more slowly. For passes/prepare_padding.py. A fused pooling's layer:
    the halo of its convolution alone (:func:`~.cpu_conv_pool.conv_params`; the output of ``params`` is pooled)."""
    if fused_pool(params) is not None:
        params = conv_params(params)
    x_lay = params.inputs[0]
    if x_lay.format != Format.bfyx:
        return None
    by, ay, bx, ax = input_halo(params)
    lo, hi = x_lay.padding.lower, x_lay.padding.upper
    pad = (max(by, 1), max(ay, 1), max(bx, 1), max(ax, 1))  # at least 1: a 1x1 layer's input is padded for others
    padded = x_lay.with_(padding=Padding((lo[0], lo[1], max(lo[2], pad[0]), max(lo[3], pad[2])),
                                         (hi[0], hi[1], max(hi[2], pad[1]), max(hi[3], pad[3]))))
    f = form_of(dataclasses.replace(params, inputs=[padded] + list(params.inputs[1:])))
    return (by, ay, bx, ax) if f.in_place or f.rows_in else None


def writes_padded_rows(params: Params) -> bool:
    """True when the layer, with the spatially padded bfyx output of ``params``, stores its tiles straight into the
    output rows (channel-vector row tiles), not through a temporary and a numba store. For prepare_padding."""
    f = form_of(params)
    return f.oc_rows and not f.shuf


@register
class ConvolutionKernelCpuPacked(CpuKernelBase):
    """2-D convolution as a packed-panel GEMM with a register-tiled LLVM-IR micro-kernel (CPU engine).

    Inputs: data (N, C, H, W) f32 in bfyx, byxf, yxfb, fyxb or b_fs_yx_fsv16 (padding allowed); weights
    (OC, C/groups, KH, KW) f32 in ``os_iyx_osv16`` (the layout optimizer packs them at build time); bias (OC,)
    plain. Output (N, OC, OH, OW) f32 in any of those formats (padding allowed). Any groups, stride, dilation and
    pads. Fused ops: activations and at most one eltwise (the ``convolution_cpu_gemm`` rules). Threads: numba's,
    whole column panels per grab; the :class:`~kernel_selector.common.cpu_launch.Launcher` picks the calling thread
    or the pool by timing. Measured per layer in ``benchmarks/cpu_kernels.py``.
    """

    name = "convolution_cpu_packed"
    primitive = "convolution"
    supports_fused_ops = True
    fused_op_kinds = frozenset({"activation", "eltwise", "shuffle_channels", "pooling"})  # shuffle, pooling: last

    def supported_key(self) -> SupportedKey:
        """CPU, f32, plain or b_fs_yx_fsv16 data in and out, padding allowed."""
        return f32_key(DATA_FORMATS)

    def validate(self, params: Params) -> str | None:
        """Rank 4, os_iyx_osv16 weights, plain bias, supported fused ops; a fused channel shuffle
        (passes/fusing/fuse_shuffle_channels.py) last, of the convolution's groups, after activations only, into an
        unpadded bfyx output; a fused max or average pooling (:mod:`.cpu_conv_pool`) last, after activations only,
        on a layer that runs channel-vector row tiles, into a bfyx output."""
        pool = fused_pool(params)
        if pool is not None:
            why = fused_pool_reason(pool_attrs(pool))
            if why is not None:
                return why
            if params.output.format != Format.bfyx:
                return f"fused pooling: the output must be bfyx, got {params.output.format.name}"
            f = form_of(params)
            ow = f.params.output.dims4[3]
            if ow < FUSED_POOL_MIN_WIDTH:
                return f"fused pooling: convolution rows of {ow} pixels, needs {FUSED_POOL_MIN_WIDTH} or more"
            if any(op.kind != "activation" for op in f.params.fused_ops) or not f.oc_rows or f.rows_out:
                return (f"fused pooling after {[op.kind for op in f.params.fused_ops]}: needs activations only and a "
                        "convolution on channel-vector row tiles")
            params = f.params
        shuf = shuffle_groups(params)
        if shuf:
            ops = list(params.fused_ops)
            g = int(params.attrs_as(ConvolutionAttrs).groups)
            if shuf != g or g < 2 or any(op.kind != "activation" for op in ops[:-1]):
                return f"fused channel shuffle of {shuf} groups after {[op.kind for op in ops[:-1]]} on a " \
                       f"convolution of {g} groups: needs shuffle groups = convolution groups > 1, activations only"
            out = params.output
            if out.format != Format.bfyx or not out.padding.is_zero:
                return f"fused channel shuffle: the output must be unpadded bfyx, got {out}"
            params = dataclasses.replace(params, fused_ops=ops[:-1])
        return validate_common(params, frozenset({Format.os_iyx_osv16}))

    def priority(self, params: Params) -> int:
        """FORCE_PRIORITY_2 on plain data, ahead of ``convolution_cpu_gemm`` (BLAS, 3). On blocked data
        FORCE_PRIORITY_3, one step behind, so the layout optimizer (which weighs the blocked choice against the
        best plain kernel, weights packed or not) keeps a dense convolution in bfyx (a 1×1 then reads its input in
        place and the epilogue writes the output in place) and this kernel still runs on data that is blocked for
        other reasons (gemm is 5 there). Thin grouped shapes (few channels per group): FORCE_PRIORITY_5 in both,
        behind the direct ``convolution_cpu_fsv16`` (3) and the depthwise kernel (2), ahead of a BLAS call per
        group (7)."""
        if thin_grouped(params):
            return FORCE_PRIORITY_5
        return FORCE_PRIORITY_3 if params.inputs[0].format == Format.b_fs_yx_fsv16 else FORCE_PRIORITY_2

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(data, weights[, bias], output, [fused operands...])."""
        pooled = params.output  # the node's output: the pooled one when a pooling is fused
        f = form_of(params)
        shuf, params = f.shuf, f.params
        a, geo, x_lay, _, out_lay, n_img, c, h, wd, oc, icg, kh, kw, g, ocg, k, oh, ow, npix = shape_of(params)
        n_own = len(params.inputs)
        has_bias = int(n_own > 2)
        rtab = row_tiles(oc, g)
        direct, direct_out, one_pixel, oc_form = f.direct, f.direct_out, f.one_pixel, f.oc_form
        grid, rp, grid_chain, oc_rows, plain_grid, in_place = f.grid, f.rp, f.grid_chain, f.oc_rows, f.plain_grid, \
            f.in_place
        sy, sx = int(a.stride[0]), int(a.stride[1])
        ops = list(params.fused_ops)
        bounds, flags, res_at, rest = split_chain(ops, out_lay)
        codes, fa, fb, m = chain_arrays(rest, out_lay)
        elt_rest = any(op.kind == "eltwise" for op in rest)
        out_rows = row_map(out_lay)
        rm = operand_map(ops[res_at].extra_inputs[0], out_lay) if res_at >= 0 else None
        hp, wpad, npg, koff = grid_geometry(oh, ow, kh, kw, a.dilation[0], a.dilation[1], icg, sy, sx) if grid else (
            0, 0, 0, np.zeros(0, np.int64))
        if plain_grid:
            hp = (oh - 1) * sy + (kh - 1) * a.dilation[0] + 1
            wpad = (ow - 1) * sx + (kw - 1) * a.dilation[1] + 1
            koff = plain_grid_offsets(icg, kh, kw, a.dilation[0], a.dilation[1], hp, wpad)
        if in_place:  # the input's own zero halo: the patch rows at its real pitches, no copy
            koff = in_place_offsets(icg, kh, kw, a.dilation[0], a.dilation[1], x_lay)
        # the buffer index of each eltwise operand (after the output), in chain order
        elt_buf = [n_own + 1 + j for j, op in enumerate(op for op in ops for _ in op.extra_inputs)
                   if op.kind == "eltwise"]
        xd, od = tensor_desc(x_lay), tensor_desc(out_lay)
        ops_i, ops_f, rd = encode_fused(params)
        pitch = x_lay.pitches
        x_off = x_lay.padding.lower[0] * pitch["b"] + x_lay.padding.lower[1] * pitch["f"]
        launch_cols = Launcher(g * k * npix)
        launch_pad = Launcher(n_img * c * h * wd)  # the grid's input copy (every image of a slot in one region) and its
        launch_out = Launcher(oc * npix)   # output copy: one Launcher each, so each times its own function
        no_ops = np.zeros(0, np.int64)
        no_koff = np.zeros(0, np.int64)

        # scratch kept for the kernel's life (a fresh multi-MB array per run costs its page faults, ~1 ms for a
        # 3x3 layer of ResNet-50's first stage); CPU kernels run one at a time (cpu_engine._RUN_LOCK). Up to
        # ``ipc`` images share one GEMM region, each with its own slot of scratch (at most SCRATCH_BYTES in all)
        n_cols = 0 if direct or grid or oc_rows else g * k * npix
        n_y = 0 if (direct_out and not grid) or rp or oc_rows else oc * (npg if grid else npix)
        n_xpad = (c * hp * wpad if plain_grid else c * sy * sx * hp * wpad) if grid and not in_place else 0
        x_in = layout_offset(x_lay)  # image 0's element (0, 0, 0): a 1x1 layer's rows read in place
        # in place: image n0's element (0, -pad_y, -pad_x), the origin of the patch rows' offsets
        x_halo = layout_offset(x_lay) - a.pad[0] * pitch["y"] - a.pad[1] * pitch["x"]
        ipc = max(1, min(n_img, SCRATCH_BYTES // max(1, 4 * (n_cols + n_y + n_xpad))))
        cols = np.empty(ipc * n_cols, np.float32)
        y = np.empty(ipc * n_y, np.float32)
        xpad = np.zeros(ipc * n_xpad, np.float32)  # borders stay zero: only interiors are written
        n_panels = oh * rp if rp else -(-(npg if grid else npix) // NR)  # column panels of one image
        splits = row_splits(len(rtab), ipc * n_panels, numba.get_num_threads())
        # work for the Launcher: an eighth of the MACs plus the elements read and written
        # few tasks (column panels, or row ranges of them: a 14x14 image has 13 panels of NR = 16, a 7x7 one 4): one
        # per grab, since grabs of CHUNK_ITERATIONS gave one thread 8 of 13 or all 4; many small ones (MobileNet's
        # 56x56 layers) keep the default grab
        n_tasks = ipc * n_panels * splits
        launch = Launcher(ipc * (oc * k * npix // 8 + (k + oc) * npix),
                          chunk=1 if n_tasks < 16 * numba.get_num_threads() else CHUNK_ITERATIONS)
        # the second channel-vector tile (cpu_conv_oc.alt_tile, read at build): row tiles run along output rows,
        # the flat tiles along an image's pixels
        alt = alt_tile(k, npix, ow if oc_rows else npix)
        tile_px, tile_c = tile_of(alt)
        oc_parts = oc_chunks(ipc * -(-oc // tile_c), -(-npix // tile_px), numba.get_num_threads())
        launch_oc = Launcher(ipc * (oc * k * npix // 8 + (k + oc) * npix), chunk=1)
        bias_pad = np.zeros(-(-oc // PANEL) * PANEL, np.float32)  # the tiles read a whole panel of bias
        row_parts = oc_chunks(ipc * -(-oc // tile_c), oh, numba.get_num_threads())
        chain_span_len = int(cpu_conv_oc.CHAIN_SPAN)  # read at build time (benchmarks/switch_ab.py can set it)
        overlap = int(cpu_conv_oc.OVERLAP_LAST_TILE)
        # two output rows per tile (7-wide maps on a full-rate host; read at build time)
        pair = pair_rows(ow, not (kh == kw == 1 and sy == sx == 1), int(out_rows[3]),
                         None if rm is None else int(rm[3])) if oc_rows else 0
        koff_1x1 = np.arange(icg, dtype=np.int64) * pitch["f"]

        # read at build time (switch_ab.py can set them)
        oc_flags = flags | oc_prefetch_flags(grid, 4 * oc * k)

        # the grid's copy: SY·SX stride phases, or one plain plane read at (SY, SX) steps by the row tiles
        py_phases, px_phases = (1, 1) if plain_grid else (sy, sx)
        row_step, pix_step = (sy, sx) if plain_grid else (1, 1)

        if f.pool is not None:  # a pooling fused last (cpu_conv_pool): bands of rows pooled while in L2
            pa = pool_attrs(f.pool)
            win, pm, rdiv = pool_window(pa), row_map(pooled), pool_divisors(pa, oh, ow)
            poh, pow_ = int(pooled.dims4[2]), int(pooled.dims4[3])
            scratch, band, slot = pool_scratch(tile_c, ow, poh, pow_, win)
            pool_parts = oc_chunks(ipc * -(-oc // tile_c), poh, numba.get_num_threads())
            pair_p = pair_rows(ow, not (kh == kw == 1 and sy == sx == 1), ow, None)

            def fn_pool(*bufs: Any) -> None:
                x, wp, out = f32_view(bufs[0]), f32_view(bufs[1]), f32_view(bufs[n_own])
                if has_bias:
                    bias_pad[:oc] = f32_view(bufs[2])[:oc]
                for n0 in range(0, n_img, ipc):
                    cnt = min(ipc, n_img - n0)
                    if grid and not in_place:
                        launch_pad(pad_planes, x, xd, n0, cnt, xpad, n_xpad, c, h, wd, hp, wpad, a.pad[0], a.pad[1],
                                   py_phases, px_phases)
                        src = (xpad, 0, n_xpad, koff, wpad * row_step, pix_step, 0)
                    elif in_place:
                        src = (x, x_halo + n0 * pitch["b"], pitch["b"], koff, sy * pitch["y"], sx * pitch["x"], 0)
                    else:
                        src = (x, x_in + n0 * pitch["b"], pitch["b"], no_koff if sy == sx == 1 else koff_1x1,
                               sy * pitch["y"], sx * pitch["x"], pitch["f"])
                    launch_oc(oc_row_tiles_pool, *src[:6], oh, ow, k, wp, oc, bias_pad, has_bias, bounds, oc_flags,
                              codes, fa, fb, cnt, pool_parts, alt, src[6], overlap, pair_p, win, out,
                              int(pm[0] + n0 * pm[1]), int(pm[1]), int(pm[2]), int(pm[3]), poh, pow_, scratch, band,
                              slot, rdiv)

            return fn_pool

        def rows_res(res: np.ndarray, n0: int) -> tuple[np.ndarray, int, int, int, int]:
            """(res, r_off, r_img, r_f, r_y) of oc_row_tiles from image n0 on (no residual: r_off -1)."""
            if rm is None:
                return EMPTY, -1, 0, 0, 0
            return res, int(rm[0] + n0 * rm[1]), int(rm[1]), int(rm[2]), int(rm[3])

        def fn(*bufs: Any) -> None:
            tail = 32 if PLAIN_B_TAIL else 0  # flags & 32: an edge tile of a packed panel loads B plainly
            x = f32_view(bufs[0])
            wp = f32_view(bufs[1])
            bias = f32_view(bufs[2]) if has_bias else EMPTY
            out = f32_view(bufs[n_own])
            res = f32_view(bufs[elt_buf[0]]) if rm is not None else EMPTY
            rest_buf = f32_view(bufs[elt_buf[-1]]) if elt_rest and direct_out else EMPTY
            if has_bias and (oc_form or oc_rows):
                bias_pad[:oc] = bias[:oc]
            for n0 in range(0, n_img, ipc):
                cnt = min(ipc, n_img - n0)
                out0 = int(out_rows[0] + n0 * out_rows[1])
                if oc_rows and not grid:  # a strided 1x1 (or one from or into padded planes): the input in place
                    launch_oc(oc_row_tiles, x, x_in + n0 * pitch["b"], pitch["b"],
                              no_koff if sy == sx == 1 else koff_1x1, sy * pitch["y"], sx * pitch["x"], oh, ow, k, wp,
                              oc, out, out0, int(out_rows[1]), int(out_rows[2]), int(out_rows[3]), bias_pad, has_bias,
                              bounds, oc_flags, codes, fa, fb, cnt, row_parts, chain_span_len, *rows_res(res, n0),
                              alt, pitch["f"], overlap, pair)
                    continue
                if in_place:  # the input's own zero halo (prepare_padding): no copy
                    launch_oc(oc_row_tiles, x, x_halo + n0 * pitch["b"], pitch["b"], koff, sy * pitch["y"],
                              sx * pitch["x"], oh, ow, k, wp, oc, out, out0, int(out_rows[1]), int(out_rows[2]),
                              int(out_rows[3]), bias_pad, has_bias, bounds, oc_flags, codes, fa, fb, cnt, row_parts,
                              chain_span_len, *rows_res(res, n0), alt, 0, overlap, pair)
                    continue
                if grid:
                    launch_pad(pad_planes, x, xd, n0, cnt, xpad, n_xpad, c, h, wd, hp, wpad, a.pad[0], a.pad[1],
                               py_phases, px_phases)
                    if oc_rows:
                        launch_oc(oc_row_tiles, xpad, 0, n_xpad, koff, wpad * row_step, pix_step, oh, ow, k, wp, oc,
                                  out, out0, int(out_rows[1]), int(out_rows[2]), int(out_rows[3]), bias_pad, has_bias,
                                  bounds, oc_flags, codes, fa, fb, cnt, row_parts, chain_span_len, *rows_res(res, n0),
                                  alt, 0, overlap, pair)
                        continue
                    if rp and grid_chain:  # row panels with the residual and the rest of the chain in the tiles
                        r_off, r_f, r_img = (int(rm[0] + n0 * rm[1]), int(rm[2]), int(rm[1])) if rm is not None \
                            else (-1, 0, 0)
                        launch(_gemm_tiles, wp, k, rtab, ocg, xpad, 0, icg * sy * sx * hp * wpad, 0, koff, ow, splits,
                               out, int(out_rows[0] + n0 * out_rows[1]), int(out_rows[2]), bias, has_bias, res, r_off,
                               r_f, bounds, flags | tail, codes, fa, fb, rest_buf, int(m[0] + n0 * m[1]), int(m[2]),
                               int(m[4]), cnt, n_xpad, int(out_rows[1]), r_img, int(m[1]), NOPACK_TILES, rp, oh, wpad,
                               int(out_rows[3]), 0)
                        continue
                    if rp:  # row panels: the tiles land in the output rows; the rest of the chain then runs on them
                        launch(_gemm_tiles, wp, k, rtab, ocg, xpad, 0, icg * sy * sx * hp * wpad, 0, koff, ow, splits,
                               out, int(out_rows[0] + n0 * out_rows[1]), int(out_rows[2]), bias, has_bias, EMPTY, -1, 0,
                               bounds, flags | tail, no_ops, fa, fb, EMPTY, 0, 0, 0, cnt, n_xpad, int(out_rows[1]),
                               0, 0, NOPACK_TILES, rp, oh, wpad, int(out_rows[3]), 0)
                        for i in range(cnt if codes.shape[0] else 0):
                            launch_out(output_chain, out, out_rows, n0 + i, oc, oh, ow, codes, fa, fb,
                                       chain_span_len)
                        continue
                    # the activations after the register epilogue run on whole output rows as they are copied out
                    launch(_gemm_tiles, wp, k, rtab, ocg, xpad, 0, icg * sy * sx * hp * wpad, 0, koff, npg, splits, y,
                           0, npg,
                           bias, has_bias, EMPTY, -1, 0, bounds, flags | tail, no_ops, fa, fb, EMPTY, 0, 0, 0,
                           cnt, n_xpad, n_y, 0, 0, NOPACK_TILES, 0, 0, 0, 0, 0)
                    for i in range(cnt):
                        launch_out(grid_to_output, y[i * n_y:(i + 1) * n_y], npg, wpad, out, out_rows, n0 + i, oc,
                                   oh, ow, codes, fa, fb)
                    continue
                if direct:
                    b, b_off, b_grp, ldb, b_img = x, x_off + n0 * pitch["b"], icg * pitch["f"], pitch["f"], pitch["b"]
                else:
                    b, b_off, b_grp, ldb, b_img = cols, 0, k * npix, npix, n_cols
                    for i in range(cnt):
                        launch_cols(im2col, x, cols[i * n_cols:(i + 1) * n_cols], geo, xd, n0 + i)
                if direct_out:
                    r_off, r_f, r_img = (int(rm[0] + n0 * rm[1]), int(rm[2]), int(rm[1])) if rm is not None \
                        else (-1, 0, 0)
                    if oc_form:
                        launch_oc(oc_tiles, b, b_off, ldb, npix, k, wp, ocg, out,
                                  int(out_rows[0] + n0 * out_rows[1]), int(out_rows[2]), bias_pad, has_bias, res, r_off,
                                  r_f, bounds, oc_flags, codes, fa, fb, rest_buf, int(m[0] + n0 * m[1]), int(m[2]),
                                  int(m[4]), cnt, b_img, int(out_rows[1]), r_img, int(m[1]), oc_parts, g, b_grp,
                                  ocg * int(out_rows[2]), alt, overlap)
                        continue
                    if one_pixel:
                        launch(gemv_panels, wp, k, oc, b, b_off, ldb, out, int(out_rows[0] + n0 * out_rows[1]),
                               int(out_rows[2]), bias, has_bias, res, r_off, r_f, bounds, flags, codes, fa, fb,
                               rest_buf, int(m[0] + n0 * m[1]), int(m[2]), cnt, b_img, int(out_rows[1]), r_img,
                               int(m[1]))
                        continue
                    stream = STREAM_C if stream_ok(out, out_rows, n0, oc, npix, cnt, codes.shape[0] > 0) else 0
                    launch(_gemm_tiles, wp, k, rtab, ocg, b, b_off, b_grp, ldb, no_koff, npix, splits, out,
                           int(out_rows[0] + n0 * out_rows[1]), int(out_rows[2]), bias, has_bias, res, r_off, r_f,
                           bounds, flags | tail | PREFETCH_B | stream, codes, fa, fb, rest_buf,
                           int(m[0] + n0 * m[1]), int(m[2]), int(m[4]), cnt, b_img, int(out_rows[1]), r_img,
                           int(m[1]), NOPACK_TILES, 0, 0, 0, 0, shuf)
                    if stream:
                        fence_threads(numba.get_num_threads())
                else:
                    launch(_gemm_tiles, wp, k, rtab, ocg, b, b_off, b_grp, ldb, no_koff, npix, splits, y, 0, npix,
                           EMPTY, 0, EMPTY, -1, 0, bounds, tail, no_ops, fa, fb, EMPTY, 0, 0, 0, cnt, b_img, n_y, 0, 0,
                           NOPACK_TILES, 0, 0, 0, 0, 0)
                    everything = fused_buffers(params, bufs, n_own)  # only the numba store reads them all
                    for i in range(cnt):
                        _store(y[i * n_y:(i + 1) * n_y].reshape(oc, npix), out, bias, everything, ops_i, ops_f, geo,
                               od, rd, n0 + i)

        return fn

