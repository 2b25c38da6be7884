"""Small dense 1×1 convolutions on the CPU engine with the output channels in the vector lanes.

``convolution_cpu_packed`` computes ``out (OC, pixels) = W (OC, C) · X (C, pixels)`` with the pixels in the vector
lanes, packing a panel of X per task. For the small layers of mobile networks (MobileNet's, ShuffleNet's and
SqueezeNet's 1×1 layers at 7×7 to 56×56, a few million multiply-adds each) that structure costs more than it
computes: per-task packing, 16-pixel panels that end inside a 7×7 image. Here each tile is 16 output channels (one
``os_iyx_osv16`` weight panel, read where it lies) × OC_PIXELS pixels broadcast from the input planes where they lie
(:mod:`~kernel_selector.common.cpu_microkernel_oc`, the orientation of oneDNN's and onnxruntime's direct
convolutions); nothing is copied. Measured against the pixel-vector GEMM in one process (isolated layers with bias
and relu, 2 threads): 1.3-2× faster up to ~5 M multiply-adds (40 → 240 at 14×14: 0.055 vs 0.099 ms; 96 → 576 at
7×7: 0.070 vs 0.116; 64 → 256 at 13×13: 0.047 vs 0.079), equal around 50 M, 10-20% slower on large layers (64 → 256
at 56×56, 512 → 1000 at 13×13), hence OC_MAX_MACS.

:func:`oc_row_tiles` does the same along the output rows of a padded grid (k×k layers, stride phases included) or
of a strided 1×1 layer read in place, for outputs of at most OC_ROWS_MAX_PIXELS, and k×k layers of any size whose
channels fill the lanes (:func:`use_oc_rows`): a 7-pixel row is 4 + 3 pixels
where the grid's GEMM computed 9-column rows in 16-pixel panels and copied them out. ResNet-50 at batch 1, same
process: its 3×3 layers at 7×7 5.0-5.3 → 3.1-3.3 ms, the stride-2 3×3 ones 0.87×, 1024 → 2048 stride 2 0.80×;
networks 0.91× (YOLO-style) to 0.97× (GoogLeNet), batch 8 unchanged.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ...common.cpu_epilogue import I0, chain_span
from ...common.cpu_microkernel import PANEL, W
from ...common.cpu_microkernel_oc import (
    ALT_CHANNELS,
    ALT_PIXELS,
    ALT_WIDE,
    OC_CHANNELS,
    OC_PIXELS,
    micro_kernel_oc,
    micro_kernel_oc_alt,
    micro_kernel_oc_panel,
    micro_kernel_oc_rows,
    micro_kernel_oc_rows_alt,
    micro_kernel_oc_rows_pair,
    micro_kernel_oc_rows_panel,
)
from ...common.elementwise_numba import NJIT

OC_MAX_MACS = 8 << 20
"""A dense 1×1 stride-1 convolution with at most this many multiply-adds per image runs channel-vector tiles ..."""
OC_MAX_INPUT_BYTES = 1 << 30
"""... when its input image is at most this large. Until 2026-12-08 half the L2 of a Zen 4 core (256 KB: every
16-channel panel sweeps the whole input, which then stays in L2; in GoogLeNet, 480-512 -> 24-64 channels at 13×13
with 330 KB inputs ran 1.1-1.3× slower than the pixel-vector GEMM with 8-pixel 16-channel tiles). With 7 × 32 tiles
and the input rows prefetched ahead (cpu_microkernel_oc.PREFETCH_X) the input size stopped mattering: same-process
A/B against 256 KB (2-core Zen 4, AVX-512), SqueezeNet batch 8 0.967× the time (its squeeze 1×1 layers, 64/128 ->
16 at 55×55), Inception-v2 batch 8 0.99×, SqueezeNet, GoogLeNet, Inception-v2, ShuffleNet and DenseNet-121 at batch
1 0.99-1.01×. Left as a switch for A/B measurements."""


OC_WIDE_PIXELS = (49, 256)
"""With 16-float vectors (AVX-512: a tile's 16 output channels are one register), a dense 1×1 stride-1 layer of
any size whose output has this many pixels per image (7×7 to 16×16) also runs channel-vector tiles ...
Same-process A/B on a 2-core Zen 4 that shows AVX-512 (2026-12-07, 15-21 interleaved runs, the median of the paired
ratios new / old; outputs identical). The 13×13-16×16 window first: ResNet-50 b1 0.95 (its twelve 14×14 1×1
layers, e.g. 256 → 1024 0.75 → 0.57 ms), b8 0.98; GoogLeNet b1 1.00, b8 0.95; DenseNet-121 0.98; Inception-v2
0.97; SqueezeNet 0.96; ShuffleNet (no layer changed) 0.99, the noise floor. Then 7×7 added on top: ResNet-50 b1
0.95 and 0.96 in two rounds (its five 7×7 1×1 layers, which carry the residual sum), b8 0.97; Inception-v2 0.97;
GoogLeNet and DenseNet-121 (no layer changed) 1.01 and 0.98. Isolated layers (bias and relu only, no residual)
disagreed at 7×7 (1.04-1.12× slower) and agreed at 14×14 (0.87-0.90×); at 28×28 and up the pixel-vector GEMM
stayed ahead (1.05-1.15×). Not measured with AVX2, where a tile's channels take two registers: there the rule
above alone decides."""
OC_WIDE_MAX_INPUT_BYTES = 1 << 20
"""... when its input image is at most this large (ResNet-50's 1024-channel 14×14 inputs are 784 KiB)."""


def use_channel_vectors(oc: int, k: int, npix: int, lanes: int = W) -> bool:
    """True when a dense (groups 1) 1×1 stride-1 convolution of ``oc`` output channels, K = ``k`` and ``npix``
    pixels per image should run :func:`oc_tiles`: OC_MAX_MACS and OC_MAX_INPUT_BYTES; with ``lanes`` (the host's
    float vector width) 16, also OC_WIDE_PIXELS and OC_WIDE_MAX_INPUT_BYTES."""
    if oc * k * npix <= OC_MAX_MACS and 4 * k * npix <= OC_MAX_INPUT_BYTES:
        return True
    lo, hi = OC_WIDE_PIXELS
    return lanes >= 16 and lo <= npix <= hi and 4 * k * npix <= OC_WIDE_MAX_INPUT_BYTES


def use_grouped_channel_vectors(groups: int, ocg: int, k: int, npix: int, lanes: int = W) -> bool:
    """True when a grouped 1×1 stride-1 convolution (``groups`` > 1 of ``ocg`` output channels, K = ``k``, ``npix``
    pixels per image) should run :func:`oc_tiles` group by group: on a 16-float-vector host, with whole weight
    panels per group, when its pixels leave the pixel-vector GEMM's NR = 32 column panels partly empty
    (``npix`` < 32: Winograd's 36 products at 14×14 have 16 tiles, so half of every panel was idle) and each group
    passes :func:`use_channel_vectors`. With AVX2 (NR = 16, which 16 tiles fill) grouped layers measured 1.1-1.7×
    slower this way (ShuffleNet's, Winograd's), hence no change there."""
    return (groups > 1 and lanes >= 16 and ocg % PANEL == 0 and npix < 2 * lanes
            and use_channel_vectors(ocg, k, npix, lanes))


OC_SHORT_K = 160
"""On a host whose 512-bit FMAs run at half rate (Zen 4), a channel-vector layer whose reduction K (input channels ×
taps) is at most this long runs the short-reduction tile (cpu_microkernel_oc.ALT_PIXELS × ALT_CHANNELS there: 8 ×
16) instead of 7 × 32: its tile epilogue
(transpose, 32 row stores) weighs more against K steps. Same-process A/B of the two tiles (2-core Zen 4, AVX-512,
2026-12-08, medians of 8-16 paired runs): 8 × 16 faster on SqueezeNet's first layer (K = 27, batch 8: 3.03 against
3.63 ms) and 16 → 64 3×3 layers at 55×55 (K = 144: 2.4 against 2.6 ms) and GoogLeNet's 7×7 first layer (K = 147:
1.27 against 1.38); 7 × 32 faster from K = 288 on (SqueezeNet's 32 → 128 3×3 at 27×27 2.33 against 2.53 ms,
ResNet-50's 1×1 and strided layers 0.7-0.8× the time). On a host whose 512-bit FMAs run at full rate
(:func:`~kernel_selector.common.cpu_fma_rate.full_rate_512`: Zen 5) the rule does not apply (:func:`alt_tile`): there
7 × 32 beat 8 × 16 at every K measured, isolated layers on the 2-core Zen 5 VM
(2026-12-07, one tile against the other in one process, 2 threads), 7 × 32 against 8 × 16: 7×7 stride 2 3 → 64
(K = 147) 0.64 against 0.86 ms, 3×3 16 → 64 at 55×55 (K = 144) 0.20 against 0.24, 1×1 64 → 256 at 56×56 (K = 64)
0.33 against 0.44, 3×3 stride 2 3 → 64 (K = 27) 0.20 against 0.22, K = 16-32 1×1 layers within 5% either way;
networks paired (``switch_ab.py ... OC_SHORT_K 0``, 8 × 16 nowhere): ResNet-50, GoogLeNet, Inception-v2,
DenseNet-121 at batch 1 0.989-0.996× (GoogLeNet's 7×7 first layer 1.45 → 1.20 ms)."""


@numba.njit(**NJIT)
def tile_of(alt: int) -> tuple[int, int]:  # pragma: no cover - numba
    """(pixels, channels) of a channel-vector tile: the second tile (cpu_microkernel_oc.ALT_PIXELS × ALT_CHANNELS)
    when ``alt``."""
    return (ALT_PIXELS, ALT_CHANNELS) if alt else (OC_PIXELS, OC_CHANNELS)


OC_SHORT_MIN_PIXELS = 2048
"""... and so does a layer with at least this many output pixels per image (56×56 and up), whatever its K (half-rate
hosts only). There, in the tile A/B (``python benchmarks/cpu_oc_tile_ab.py --tile 8,1``) ResNet-50's 64 → 64 3×3
layers at 56×56 (K = 576) ran 1.14-1.17 ms with 8 × 16 against 1.27-1.41 with 7 × 32, GoogLeNet's 64 → 192 3.18
against 3.30; networks, paired (B: the rule off): YOLO-style neck 0.96× the time in two runs, ResNet-50, GoogLeNet,
DenseNet-121 at batch 1 and 8 0.99-1.01×. On a full-rate host (Zen 5) the 8 × 16 tile's 8 accumulators leave the
two FMA pipes half idle: the rule does not apply there. Same-process A/B on the 2-core Zen 5 VM (2026-12-07,
``python benchmarks/switch_ab.py kernel_selector.kernels.convolution.cpu_conv_oc.OC_SHORT_MIN_PIXELS 1000000000
--runs 15``, B/A of the medians): ResNet-50 b1 0.956 (its three 64 → 64 3×3 layers at 56×56 0.84 → 0.60 ms),
GoogLeNet 0.934, Inception-v2 0.931, DenseNet-121 0.931."""


PAIR_ROWS = True
"""Row tiles over rows of ALT_PIXELS / 2 pixels take two rows per tile (:func:`pair_rows`). Read at build time."""


def pair_rows(ow: int, has_koff: bool, ldy: int, r_y: int | None) -> int:
    """1 when :func:`oc_row_tiles` should run two output rows per tile: PAIR_ROWS, the wide-row second tile (full-rate
    AVX-512: 14 × 32, two rows of 7, the main tile's channels), a layer read through an offset table (``has_koff``:
    k×k grids, strided 1×1), rows of ``ow`` = 7 pixels stored contiguously (``ldy`` = ``ow``), and a residual (row
    pitch ``r_y``; None: none) with contiguous rows too."""
    return int(PAIR_ROWS and ALT_WIDE and ALT_CHANNELS == OC_CHANNELS and 2 * ow == ALT_PIXELS and has_koff
               and ldy == ow and (r_y is None or r_y == ow))


ALT_TILE: int | None = None
"""0 or 1: every channel-vector layer runs the main or the second tile (tests, A/B measurements); None: :func:`alt_tile`
decides. Read at build time."""


def alt_tile(k: int, npix: int, width: int) -> int:
    """1 when a channel-vector layer of reduction length ``k``, ``npix`` output pixels per image and tiles along runs
    of ``width`` pixels (an output row for :func:`oc_row_tiles`, the image's pixels for :func:`oc_tiles`) runs the
    second tile (cpu_microkernel_oc.ALT_PIXELS × ALT_CHANNELS), else 0: where the second tile is the wide-row one
    (full-rate AVX-512), runs of at least its width; elsewhere the short-reduction rules (OC_SHORT_K,
    OC_SHORT_MIN_PIXELS). ALT_TILE overrides."""
    if ALT_TILE is not None:
        return int(ALT_TILE)
    if ALT_WIDE:
        return int(width >= ALT_PIXELS)
    return int(k <= OC_SHORT_K or npix >= OC_SHORT_MIN_PIXELS)


def oc_chunks(n_tasks: int, n_tiles: int, threads: int) -> int:
    """Pixel-tile ranges per panel: enough that every thread gets about four tasks (a 24-channel layer has two
    panels), never more than the tiles."""
    return max(1, min(n_tiles, -(-4 * threads // max(1, n_tasks))))


@numba.njit(**NJIT)
def _one_panel(x: np.ndarray, xo: int, ldx: int, koff: np.ndarray, sai: int, n: int, wp: np.ndarray, w_off: int,
               k: int, c: np.ndarray, co: int, ldc: int, hi: int, bias: np.ndarray, bo: int, res: np.ndarray, ro: int,
               r_f: int, clamp: np.ndarray, flags: int) -> None:  # pragma: no cover - numba
    """``n`` pixels of one weight panel (``hi`` <= PANEL channels) as main-width one-panel tiles: the last panel of an
    odd count under a two-panel second tile. Input rows ``ldx`` apart when ``koff`` is empty, else at ``koff``
    with pixels ``sai`` apart; as the micro-kernels' arguments otherwise."""
    for q in range(0, n, OC_PIXELS):
        rq = ro + q if ro >= 0 else -1
        if koff.shape[0] == 0:
            micro_kernel_oc_panel(x, xo + q, ldx, min(OC_PIXELS, n - q), wp, w_off, k, c, co + q, ldc, 0, hi, bias,
                                  bo, res, rq, r_f, clamp, flags)
        else:
            micro_kernel_oc_rows_panel(x, xo + q * sai, koff, sai, min(OC_PIXELS, n - q), wp, w_off, k, c, co + q,
                                       ldc, 0, hi, bias, bo, res, rq, r_f, clamp, flags)


@numba.njit(parallel=True, **NJIT)
def oc_tiles(x: np.ndarray, x_off: int, ldx: int, npix: int, k: int, wp: np.ndarray, oc: int, c: np.ndarray,
             c_off: int, ldc: int, bias: np.ndarray, has_bias: int, res: np.ndarray, r_off: int, r_f: int,
             clamp: np.ndarray, flags: int, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray, rest: np.ndarray,
             q_off: int, q_f: int, q_p: int, n_img: int, x_img: int, c_img: int, r_img: int, q_img: int,
             chunks: int, groups: int, x_grp: int, c_grp: int, alt: int,
             overlap: int = 0) -> None:  # pragma: no cover - numba
    """``out[o, p] = Σ_k W[o, k] · X[k, p]`` (+ the epilogue) for ``n_img`` images in one parallel region.

    Input channel k, pixel p of image i at ``x[x_off + i * x_img + k * ldx + p]``; weights
    ``wp`` in ``os_iyx_osv16`` panels of K = ``k`` rows; output channel o, pixel p at ``c[c_off + i * c_img + o * ldc
    + p]``; ``bias`` padded to whole panels. Register epilogue as the micro-kernel's (bias when ``has_bias``, the
    residual of channel o at ``res[r_off + i * r_img + o * r_f + p]`` when ``r_off >= 0``, clamps and fake
    quantizations by ``flags``); the rest of the chain (``codes``, operand ``rest[q_off + i * q_img + o * q_f + p *
    q_p]``) then runs once per channel over the task's pixels. A task is one (image, group, weight panel, range of
    pixel tiles).

    ``groups`` > 1: ``oc`` is the channels of one group (a multiple of PANEL, so no panel straddles two groups), group
    g's input starts ``x_grp`` and its output ``c_grp`` further, its weight panels follow group g − 1's, and its
    channel o is channel g · oc + o of the bias, residual and chain operand.

    ``alt`` (:func:`tile_of`): the second tile (ALT_PIXELS × ALT_CHANNELS) instead of OC_PIXELS × OC_CHANNELS; where
    it is two panels wide the last panel of an odd count runs as one-panel main tiles over its pixels.

    ``overlap`` (:data:`OVERLAP_LAST_TILE`): the image's last, partial tile starts earlier so that it is whole, when
    the task also runs the tile before it (the recomputed pixels are its own, stored again before its chain runs)
    and there is no residual (whose buffer could be the output's own)."""
    px, tc = tile_of(alt)
    no_koff = np.empty(0, np.int64)
    n_pt = (npix + px - 1) // px
    last = npix - px if overlap and r_off < 0 and npix >= px else npix
    nt = (oc + tc - 1) // tc
    npg = (oc + PANEL - 1) // PANEL  # weight panels per group
    for task in prange(n_img * groups * nt * chunks):
        part = task % chunks
        t = (task // chunks) % nt
        unit = task // (chunks * nt)
        im = unit // groups
        gg = unit % groups
        o0 = t * tc
        og = gg * oc + o0  # the channel across groups
        hi = min(tc, oc - o0)
        w_off = (gg * npg + o0 // PANEL) * k * PANEL
        xb = x_off + im * x_img + gg * x_grp
        cb = c_off + im * c_img + gg * c_grp + o0 * ldc
        rb = r_off + im * r_img + og * r_f if r_off >= 0 else -1
        t_lo, t_hi = n_pt * part // chunks, n_pt * (part + 1) // chunks
        for pt in range(t_lo, t_hi):
            p0 = min(pt * px, last) if pt > t_lo else pt * px
            n = min(px, npix - p0)
            ro = rb + p0 if rb >= 0 else -1
            if alt and hi <= PANEL < ALT_CHANNELS:  # one panel under a two-panel second tile
                _one_panel(x, xb + p0, ldx, no_koff, 1, n, wp, w_off, k, c, cb + p0, ldc, hi, bias,
                           og if has_bias else -1, res, ro, r_f, clamp, flags)
            elif alt:
                micro_kernel_oc_alt(x, xb + p0, ldx, n, wp, w_off, k, c, cb + p0, ldc, 0, hi, bias,
                                    og if has_bias else -1, res, ro, r_f, clamp, flags)
            elif hi > PANEL:
                micro_kernel_oc(x, xb + p0, ldx, n, wp, w_off, k, c, cb + p0, ldc, 0, hi, bias, og if has_bias else -1,
                                res, ro, r_f, clamp, flags)
            else:
                micro_kernel_oc_panel(x, xb + p0, ldx, n, wp, w_off, k, c, cb + p0, ldc, 0, hi, bias,
                                      og if has_bias else -1, res, ro, r_f, clamp, flags)
        if codes.shape[0]:
            p0 = t_lo * px
            cnt = min(t_hi * px, npix) - p0
            for j in range(hi):
                o = og + j
                chain_span(c, cb + j * ldc + p0, cnt, codes, fa, fb, rest, q_off + im * q_img + o * q_f + p0 * q_p,
                           q_p)


OC_ROWS_MAX_PIXELS = 256
"""A dense k×k (padded grid) or strided 1×1 convolution whose output has at most this many pixels (14×14 and
smaller) runs channel-vector tiles along its output rows (:func:`oc_row_tiles`)."""
OC_ROWS_GRID_MIN_LANES = 0.9
"""... and a dense k×k one of any output size when at least this share of the tiles' vector lanes hold an output
channel (``oc`` / whole panels of 16: 24 channels fill 0.75 and ran 1.1× slower this way). Same-process A/B on the
2-core Zen 4 (AVX2) against the pixel-vector GEMM (isolated layers with bias and relu): 3×3 at 56×56 64 → 64 1.19×,
128 → 32 1.25×, 256 → 256 1.23×, 96 → 128 1.35×; at 28×28 128 → 128 1.45×, 32 → 128 1.6×; 3 → 64 stride 2 to
111×111 2×; 7×7 stride 2 3 → 64 1.06×. Strided 1×1 layers past OC_ROWS_MAX_PIXELS keep the GEMM (256 → 512 to
28×28 ran 0.87× this way)."""


OC_ROWS_MAX_PIXELS_WIDE = 1024
"""OC_ROWS_MAX_PIXELS with 16-float vectors (AVX-512: 7 × 32 tiles): ResNet-50's 256 → 512 stride-2 projection to
28×28, which carries the residual sum, 1.33 → 1.21 ms in its network (median of 20 paired runs, 2-core Zen 4,
2026-12-08; isolated without the residual 1.26 → 1.09)."""


def use_oc_rows(oc: int, npix: int, grid: bool, strided_1x1: bool, lanes: int = W) -> bool:
    """True when a dense convolution with ``oc`` output channels and ``npix`` output pixels per image, read from
    the padded grid (``grid``: k×k) or in place (``strided_1x1``), should run :func:`oc_row_tiles`
    (OC_ROWS_MAX_PIXELS, or OC_ROWS_MAX_PIXELS_WIDE when ``lanes`` (the host's float vector width) is 16;
    OC_ROWS_GRID_MIN_LANES)."""
    if not (grid or strided_1x1):
        return False
    limit = OC_ROWS_MAX_PIXELS_WIDE if lanes >= 16 else OC_ROWS_MAX_PIXELS
    return npix <= limit or (grid and oc / (-(-oc // 16) * 16) >= OC_ROWS_GRID_MIN_LANES)


OVERLAP_LAST_TILE = True
"""Row tiles: a row's last tile, when partial, starts earlier so that it is whole (:func:`oc_row_tiles`; and the
image's last tile of :func:`oc_tiles`, when its task runs the tile before: SqueezeNet's 512 -> 1000 1×1 classifier
layer at 13×13, 169 pixels, ended in a tile of one). A partial
(edge) tile runs the masked form of the micro-kernel, whose clamped pixel offsets are run-time values (registers, and
spills with 14 pixels); SqueezeNet's 55-, 27- and 13-wide rows end in one. Read at build time (the ``overlap``
argument)."""


CHAIN_SPAN = 512
"""The activations after channel-vector row tiles (:func:`oc_row_tiles`) run per channel over runs of at least this
many output elements (whole rows, still in L1/L2: 16 channels × 512 floats is 32 KB), not once per output row: a
40-wide row made each SiLU call a 40-element loop, and its call overhead cost 10-15% of YOLO-style 3×3 layers. 0:
row by row."""


@numba.njit(**NJIT)
def row_step(x: np.ndarray, xb: int, koff: np.ndarray, gw: int, sai: int, ow: int, k: int, wp: np.ndarray, w_off: int,
             hi: int, o0: int, c: np.ndarray, cb: int, ldc: int, ldy: int, bias: np.ndarray, has_bias: int,
             clamp: np.ndarray, flags: int, res: np.ndarray, rb: int, r_f: int, r_y: int, alt: int, ldx: int,
             last: int, pair: int, oy: int, y1: int) -> int:  # pragma: no cover - numba
    """Output row ``oy`` (and ``oy`` + 1 when ``pair`` and both lie below ``y1``) of one channel tile of
    :func:`oc_row_tiles` (its arguments; ``xb``, ``cb``, ``rb`` at the image's and the tile's origin, ``w_off`` the
    tile's weight panel, ``hi`` its channels, ``last`` the column a row's last tile starts at the latest); returns
    the rows done (1 or 2)."""
    px = ALT_PIXELS if alt else OC_PIXELS
    if pair and hi > PANEL and oy + 1 < y1:  # two rows of ow = ALT_PIXELS / 2 pixels in one tile
        micro_kernel_oc_rows_pair(x, xb + oy * gw, koff, sai, 2 * ow, wp, w_off, k, c, cb + oy * ldy, ldc, 0,
                                  hi, bias, o0 if has_bias else -1, res, rb + oy * r_y if rb >= 0 else -1,
                                  r_f, clamp, flags, gw)
        return 2
    for ox_t in range(0, ow, px):
        ox0 = min(ox_t, last)
        ro = rb + oy * r_y + ox0 if rb >= 0 else -1
        xo, n, co = xb + oy * gw + ox0 * sai, min(px, ow - ox0), cb + oy * ldy + ox0
        bo = o0 if has_bias else -1
        if alt and hi <= PANEL < ALT_CHANNELS:  # one panel under a two-panel second tile
            _one_panel(x, xo, ldx, koff, sai, n, wp, w_off, k, c, co, ldc, hi, bias, bo, res, ro, r_f,
                       clamp, flags)
        elif koff.shape[0] == 0:  # 1x1 stride 1: direct rows
            if alt:
                micro_kernel_oc_alt(x, xo, ldx, n, wp, w_off, k, c, co, ldc, 0, hi, bias, bo, res, ro, r_f,
                                    clamp, flags)
            elif hi > PANEL:
                micro_kernel_oc(x, xo, ldx, n, wp, w_off, k, c, co, ldc, 0, hi, bias, bo, res, ro, r_f,
                                clamp, flags)
            else:
                micro_kernel_oc_panel(x, xo, ldx, n, wp, w_off, k, c, co, ldc, 0, hi, bias, bo, res, ro,
                                      r_f, clamp, flags)
        elif alt:
            micro_kernel_oc_rows_alt(x, xo, koff, sai, n, wp, w_off, k, c, co, ldc, 0, hi, bias, bo, res,
                                     ro, r_f, clamp, flags)
        elif hi > PANEL:
            micro_kernel_oc_rows(x, xo, koff, sai, n, wp, w_off, k, c, co, ldc, 0, hi, bias, bo, res, ro,
                                 r_f, clamp, flags)
        else:
            micro_kernel_oc_rows_panel(x, xo, koff, sai, n, wp, w_off, k, c, co, ldc, 0, hi, bias, bo,
                                       res, ro, r_f, clamp, flags)
    return 1


@numba.njit(**NJIT)
def row_task(task: int, chunks: int, nt: int, tc: int, oc: int) -> tuple[int, int, int, int]:  # pragma: no cover
    """(part, image, first channel, channels) of task ``task`` of the row-tile kernels: tasks run over (image, tile of
    ``tc`` of the ``oc`` channels (``nt`` tiles), one of ``chunks`` ranges of rows), the range fastest."""
    part = task % chunks
    t = (task // chunks) % nt
    o0 = t * tc
    return part, task // (chunks * nt), o0, min(tc, oc - o0)


@numba.njit(parallel=True, **NJIT)
def oc_row_tiles(x: np.ndarray, x_off: int, x_img: int, koff: np.ndarray, gw: int, sai: int, oh: int, ow: int,
                 k: int, wp: np.ndarray, oc: int, c: np.ndarray, c_off: int, c_img: int, ldc: int, ldy: int,
                 bias: np.ndarray, has_bias: int, clamp: np.ndarray, flags: int, codes: np.ndarray, fa: np.ndarray,
                 fb: np.ndarray, n_img: int, chunks: int, span: int, res: np.ndarray, r_off: int, r_img: int,
                 r_f: int, r_y: int, alt: int, ldx: int = 0, overlap: int = 1,
                 pair: int = 0) -> None:  # pragma: no cover - numba
    """Channel-vector tiles (:func:`tile_of`: channels × pixels of one output row) of ``n_img`` images.

    Output pixel (oy, ox) of image i reads input row k at ``x[x_off + i * x_img + oy * gw + ox * sai + koff[k]]``
    (the padded grid: ``gw`` = Wq, ``sai`` = 1, ``koff`` its patch-row offsets; a strided 1×1: ``gw`` = SY × the
    input's row pitch, ``sai`` = SX, ``koff[k]`` = k × its channel pitch) and is written at ``c[c_off + i * c_img + o *
    ldc + oy * ldy + ox]``; weights ``wp`` in ``os_iyx_osv16`` panels of K = ``k`` rows; ``bias`` padded to whole
    panels. Epilogue: bias, clamps and fake quantizations in registers, then the activations ``codes`` (no operand)
    per channel over the task's rows once they cover ``span`` elements (:data:`CHAIN_SPAN`; rows contiguous,
    ``ldy`` = ``ow``), else once per output row. A task is one (image, tile of OC_CHANNELS channels, range of output
    rows). A residual sum in the register epilogue when ``r_off >= 0``: output (i, o, oy, ox) adds ``res[r_off + i *
    r_img + o * r_f + oy * r_y + ox]``. ``alt``: the second tile, as :func:`oc_tiles`.

    ``koff`` empty: a 1×1 stride-1 layer read in place at unit pixel steps (``sai`` 1), input row k at ``k * ldx``
    (the direct micro-kernels of :func:`oc_tiles`: a table of K offsets filled a quarter to half of L1 at K = 1024 to
    2048 and made 7×7 layers 13% slower).

    ``pair`` (a layer with ``koff``, rows of ow = ALT_PIXELS / 2 pixels, ``ldy`` = ``ow`` and ``r_y`` = ``ow``): two
    output rows per tile (cpu_microkernel_oc.micro_kernel_oc_rows_pair), the input rows ``gw`` apart, for tiles of
    more than one weight panel; a task's odd last row and a last single panel run the main tile."""
    px, tc = tile_of(alt)
    nt = (oc + tc - 1) // tc
    no_res = np.empty(0, np.float32)
    for task in prange(n_img * nt * chunks):
        part, im, o0, hi = row_task(task, chunks, nt, tc, oc)
        w_off = o0 * k
        xb = x_off + im * x_img
        cb = c_off + im * c_img + o0 * ldc
        rb = r_off + im * r_img + o0 * r_f if r_off >= 0 else -1
        y0, y1 = oh * part // chunks, oh * (part + 1) // chunks
        pend = y0  # the first row the chain has not run on
        # a row's last, partial tile moves back to end at the row's end (``overlap``), a whole tile that
        # recomputes a few of the previous tile's pixels: the same values again, stored by the same task before the
        # row's chain runs; not with a residual, whose buffer could be the output's own
        last = ow - px if overlap and rb < 0 and ow >= px else ow
        oy = y0
        while oy < y1:
            rows = row_step(x, xb, koff, gw, sai, ow, k, wp, w_off, hi, o0, c, cb, ldc, ldy, bias, has_bias, clamp,
                            flags, res, rb, r_f, r_y, alt, ldx, last, pair, oy, y1)
            oy += rows
            if codes.shape[0] == 0:
                continue
            if ldy != ow or span <= 0:  # row by row
                for r in range(oy - rows, oy):
                    for j in range(hi):
                        chain_span(c, cb + j * ldc + r * ldy, ow, codes, fa, fb, no_res, I0, I0)
            elif (oy - pend) * ow >= span or oy == y1:  # the rows since pend as one span per channel
                for j in range(hi):
                    chain_span(c, cb + j * ldc + pend * ldy, (oy - pend) * ow, codes, fa, fb, no_res, I0, I0)
                pend = oy
