"""convolution_cpu_oc_blocked: channel-vector row tiles that write ``b_fs_yx_fsv16`` (CPU engine).

The blocked counterpart of ``convolution_cpu_packed``'s channel-vector tiles (:mod:`.cpu_conv_oc`), for the layers
that run them there (small and mid-size dense layers: :func:`~.cpu_conv_oc.use_channel_vectors`,
:func:`~.cpu_conv_oc.use_oc_rows`). The tiles are the same (16 output channels of a pixel per accumulator, input
pixels broadcast, ``os_iyx_osv16`` weight panels read where they lie); the output is stored as the accumulators hold
it, 16 channels of a pixel contiguous (onnxruntime's NCHWc convolutions, oneDNN's nChw16c ones), so the per-tile
transpose and the 32 row stores of a bfyx output are gone (:mod:`.cpu_conv_oc_blocked`). The input is a
b_fs_yx_fsv16 tensor (from another such layer) or a bfyx one (a network's first blocked layer reads its plain input
in place), read through a table of patch-row offsets, the halo in its padding (passes/prepare_padding.py pads a
blocked layer's producer) or a zero-bordered copy (blocked: :func:`~.cpu_conv_oc_blocked.pad_blocked`; bfyx, a
network's input: :func:`~.cpu_conv_grid.pad_planes`).

The layout optimizer (passes/reorder_inputs.py) makes such a layer blocked when this kernel validates, and on the CPU
engine only where every convolution that reads the blocked data (through concatenations, poolings, activations and
eltwise nodes) is blocked too (:mod:`cldnn_py.passes.blocked_regions`): a pixel-vector GEMM layer in between would
need a reorder each way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from cldnn_py.layout import Format, Padding
from cldnn_py.ops import ConvolutionAttrs, PoolingMode

from ...common.cpu_epilogue import EMPTY, chain_arrays
from ...common.cpu_launch import Launcher
from ...common.cpu_layout import layout_offset, row_map
from ...common.cpu_microkernel import PANEL
from ...common.cpu_microkernel_oc import ALT_WIDE
from ...cpu_kernel_base import CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_1
from ...params import Params, SupportedKey
from ...selector import register
from ..pooling.cpu_pooling_blocked import column_taps, row_windows, tap_tables
from ..pooling.pooling_kernel_cpu_fsv16 import MODES
from .convolution_kernel_cpu_packed import (
    FUSED_POOL_MIN_WIDTH,
    covers_halo,
    form_of,
    input_halo,
    oc_prefetch_flags,
    shape_of,
    split_chain,
)
from .cpu_conv_common import f32_key, f32_view, tensor_desc, validate_common
from .cpu_conv_grid import pad_planes, plain_grid_offsets
from .cpu_conv_oc import alt_tile, oc_chunks, oc_row_tiles, tile_of
from .cpu_conv_oc_blocked import blocked_offsets, oc_row_tiles_blocked, pad_blocked
from .cpu_conv_pool import (
    BAND_BYTES,
    conv_params,
    fused_pool,
    fused_pool_reason,
    pool_attrs,
    pool_window,
    window_divisors,
)
from .cpu_conv_pool_blocked import band_rows_blocked, oc_row_tiles_blocked_pool

ENABLED = True
"""Off: the kernel validates nothing, so every dense convolution stays bfyx on the CPU engine (A/B measurements;
read when the layout optimizer runs, i.e. when a Program is built)."""
FUSED_POOL = True
"""Off: the kernel refuses a fused pooling, so such poolings stay kernels of their own (``pooling_cpu_fsv16``) on
blocked data (A/B measurements; read when a Program is built)."""
FSV16 = Format.b_fs_yx_fsv16
MIN_WIDTH = 8
"""Output rows of at least this many pixels: on 7-wide maps ``convolution_cpu_packed`` runs two rows per tile or flat
tiles over the whole image, which row tiles of 7 pixels lose to (ResNet-50's 3×3 512 → 512 at 7×7 from a blocked
input 0.77 ms against 0.64)."""


ANY_SHAPE = True
"""On: at batch 1 the kernel takes every dense layer into a b_fs_yx_fsv16 output with rows of MIN_WIDTH_ANY pixels
or more, the pixel-vector GEMM's shapes too, so whole residual networks run blocked with the residual sum fused
(ResNet-50 at batch 1: 0.965-0.97× the time, paired A/B; its 56 × 56 1 × 1 layers 0.31 → 0.27 ms, the 7 × 7 3 × 3
ones slower, 0.60 → 0.72). Batch 1 only: at batch 8 a task is a whole image of one 32-channel tile, so a narrow
layer streams its input once per tile (ResNet-50's 256 → 64 1 × 1 at 56 × 56 4.6 ms against the GEMM's 2.2, the
network 1.03-1.05× the time); at batch 1 the image's rows are split among the threads and both tiles of a band run
together. A bfyx output keeps the rule below (the transposing row tiles ran Inception-v2's 128 → 160 3 × 3
stride-2 layer into a concatenation 0.51 ms against the GEMM's 0.18). Off: only the shapes
``convolution_cpu_packed`` runs on channel-vector tiles (:func:`plain_tiles`) with rows of MIN_WIDTH pixels or
more. Read when a Program is built."""
MIN_WIDTH_ANY = 7
"""The narrowest output rows under ANY_SHAPE: ResNet's last stage (7 × 7) too, so its region need not end in a
reorder; its 3 × 3 layers run slower there than ``convolution_cpu_packed``'s two-row tiles (0.73 ms against 0.59)."""


def plain_tiles(params: Params) -> bool:
    """True when ``convolution_cpu_packed`` would run the layer (its convolution alone, bfyx unpadded in and out) on
    channel-vector tiles, flat or along rows: the shapes this kernel takes."""
    plain = dataclasses.replace(
        params, inputs=[params.inputs[0].with_(format=Format.bfyx, padding=Padding())] + list(params.inputs[1:]),
        output=params.output.with_(format=Format.bfyx, padding=Padding()), fused_ops=[])
    f = form_of(plain)
    return f.oc_form or f.oc_rows


def blocked_conv_params(params: Params) -> Params:
    """The Params of a layer's convolution alone (its fused pooling dropped,
    :func:`~.cpu_conv_pool.conv_params`) into its own unpadded b_fs_yx_fsv16 planes: what the band tiles compute
    before they pool."""
    conv = conv_params(params)
    return dataclasses.replace(conv, output=conv.output.with_(format=FSV16))


FLAT = True
"""Off: a 1×1 stride-1 layer whose input and output rows lie back to back runs its tiles along its own output rows,
never :func:`flat_rows` (A/B measurements; read when a kernel is built)."""


def flat_image(a: ConvolutionAttrs, kh: int, kw: int, w: int, x_px: int, x_y: int, ow: int, o_px: int,
               o_y: int) -> bool:
    """True when a layer's output pixels can be tiled as any rows of the same pixel count (:func:`flat_rows`): a
    1×1 kernel, stride 1, no pads, and the rows of both the input (``w`` pixels ``x_px`` floats apart, rows ``x_y``
    apart) and the output (``ow`` pixels, ``o_px`` / ``o_y``) back to back (no x padding); FLAT."""
    return (FLAT and (kh, kw) == (1, 1) and tuple(a.stride) == (1, 1) and not any(a.pad) and not any(a.pad_end)
            and x_y == w * x_px and o_y == ow * o_px)


FLAT_MAX_WIDTH = 512
""":func:`flat_rows` picks rows of at most this many pixels (or the image's own), so an image still splits into
rows for the threads."""
NARROW_TILE_COST = 1.25
"""What a pixel of the main (7 × 32) tile costs against one of the wide second tile (14 × 32) where the second
tile serves wide rows only (cpu_microkernel_oc.ALT_WIDE), a round figure: SqueezeNet's 512 → 1000 classifier at
13 × 13, batch 8, as one row of 169 in 14-pixel tiles 3.27 ms against 3.61 in rows of 13 (7-pixel tiles, the same 182
pixels computed; paired A/B on the 2-core Zen 5 VM, FLAT off); its 1 × 1 layers of K = 48-64 the same either way."""


def flat_rows(oh: int, ow: int, k: int) -> tuple[int, int]:
    """(rows, width) to tile an ``oh`` × ``ow`` image of a :func:`flat_image` layer of reduction length ``k`` along:
    the width a divisor of OH·OW from MIN_WIDTH to FLAT_MAX_WIDTH pixels (or the image's own width) whose tiles
    (:func:`~.cpu_conv_oc.alt_tile`; the last one of a row overlapped back to its end) cost least
    (NARROW_TILE_COST); of equals the image's own width, else the narrowest. A 13 × 13 map runs as one row of 169
    pixels in 14-pixel tiles instead of two 7-pixel tiles per 13-pixel row (the 14-pixel tile does not fit 13);
    17 × 17 as one row of 289 (294 pixels computed instead of 476 in rows of 17). onnxruntime's NCHWc pointwise
    convolution likewise runs an image's pixels as one run."""
    n = oh * ow
    best = (_row_cost(ow, k, n) * oh, 0, ow)
    for d in range(MIN_WIDTH, min(n, FLAT_MAX_WIDTH) + 1):
        if n % d == 0:
            best = min(best, (_row_cost(d, k, n) * (n // d), 1, d))
    return n // best[2], best[2]


def _row_cost(width: int, k: int, npix: int) -> float:
    """Cost of one output row of ``width`` in channel-vector tiles (every tile computed whole: the last one overlaps
    back to the row's end), in wide-tile pixels."""
    alt = alt_tile(k, npix, width)
    px = tile_of(alt)[0]
    narrow = ALT_WIDE and not alt
    return -(-width // px) * px * (NARROW_TILE_COST if narrow else 1.0)


@register
class ConvolutionKernelCpuOcBlocked(CpuKernelBase):
    """Dense 2-D convolution on channel-vector row tiles into b_fs_yx_fsv16 (CPU engine, numba + LLVM IR).

    Inputs: data (N, C, H, W) f32 in b_fs_yx_fsv16 with C a multiple of 16, or bfyx; the layer's halo read from
    the padding where it holds it, else from a zero-bordered copy (y/x/batch padding allowed in both; none in the
    feature dimension); weights (OC, C, KH, KW) f32
    ``os_iyx_osv16``; bias (OC,) plain. Output (N, OC, OH, OW) f32 b_fs_yx_fsv16, y/x/batch padding allowed, feature
    padding in whole blocks (the interior is written; the lanes of the last block past OC are written with what zero
    weights give); or bfyx (padding allowed) from a b_fs_yx_fsv16 input, through the transposing row tiles of
    :func:`~.cpu_conv_oc.oc_row_tiles`. Groups 1, any stride, dilation and pads; output rows of MIN_WIDTH
    pixels or more. Fused ops: what the register epilogue takes (relu / clamp, fake quantization, SiLU, HardSwish;
    ``convolution_kernel_cpu_packed.split_chain``), no eltwise. Threads: numba's, one task per (image,
    tile of channels, range of output rows). Algorithm: the channel-vector micro-kernel
    (:mod:`kernel_selector.common.cpu_microkernel_oc`), oneDNN's and onnxruntime's (MLAS NCHWc) direct convolutions.
    """

    name = "convolution_cpu_oc_blocked"
    primitive = "convolution"
    supports_fused_ops = True
    fused_op_kinds = frozenset({"activation", "eltwise", "pooling"})  # pooling: last; eltwise: a blocked residual
    writes_padded_blocks = True  # the output through its pitches and layout_offset: an in-place concat's slice

    def supported_key(self) -> SupportedKey:
        """CPU, f32, bfyx or b_fs_yx_fsv16 data in, b_fs_yx_fsv16 out, padding allowed."""
        return f32_key(frozenset({Format.bfyx, FSV16}))

    def validate(self, params: Params) -> str | None:
        """ENABLED; a b_fs_yx_fsv16 output, or a bfyx one from a b_fs_yx_fsv16 input; a b_fs_yx_fsv16 input of
        whole blocks or a bfyx input; output feature padding (an in-place
        concatenation's slice) in whole blocks; groups 1; fused activations the register epilogue takes; a shape
        ``convolution_cpu_packed`` runs on channel-vector tiles (:func:`plain_tiles`) with rows of MIN_WIDTH pixels
        or more. Each refusal names the expected and the actual value."""
        if not ENABLED:
            return "convolution_kernel_cpu_oc_blocked.ENABLED is off"
        pool = fused_pool(params)
        if pool is not None:
            if not FUSED_POOL:
                return "convolution_kernel_cpu_oc_blocked.FUSED_POOL is off"
            why = fused_pool_reason(pool_attrs(pool))
            if why is not None:
                return why
            if params.output.format != FSV16 or params.output.padding.lower[1] % 16:
                return f"fused pooling: needs a {FSV16.value} output in whole blocks, got {params.output}"
            if any(op.kind != "activation" for op in params.fused_ops[:-1]):
                return f"fused pooling after {[op.kind for op in params.fused_ops[:-1]]}: needs activations only"
            params = blocked_conv_params(params)
            if params.output.dims4[3] < FUSED_POOL_MIN_WIDTH:
                return (f"fused pooling: convolution rows of {params.output.dims4[3]} pixels, needs "
                        f"{FUSED_POOL_MIN_WIDTH} or more")
        why = validate_common(params, frozenset({Format.os_iyx_osv16}))
        if why:
            return why
        x, out = params.inputs[0], params.output
        if out.format != FSV16 and not (out.format == Format.bfyx and x.format == FSV16):
            return f"output {out.format.value} from a {x.format.value} input: needs a {FSV16.value} output or input"
        if out.padding.lower[1] % 16:
            return f"output feature padding {out.padding}: needs whole blocks of 16 before the first channel"
        if x.format == FSV16 and x.dims4[1] % 16:
            return f"a {FSV16.value} input of {x.dims4[1]} channels: needs a multiple of 16 (lanes would idle)"
        if int(params.attrs_as(ConvolutionAttrs).groups) != 1:
            return "groups: needs 1"
        _, _, _, rest = split_chain(list(params.fused_ops), out, blocked=True)
        if rest:
            return f"fused ops {[op.kind for op in params.fused_ops]}: needs what the register epilogue takes"
        any_shape = ANY_SHAPE and out.format == FSV16 and out.dims4[0] == 1
        if not any_shape and not plain_tiles(params):
            return "a shape convolution_cpu_packed runs on the pixel-vector GEMM (not channel-vector tiles)"
        min_width = MIN_WIDTH_ANY if any_shape else MIN_WIDTH
        if out.dims4[3] < min_width:
            return f"output rows of {out.dims4[3]} pixels: needs {min_width} or more"
        return None

    def priority(self, params: Params) -> int:
        """FORCE_PRIORITY_1: ahead of ``convolution_cpu_packed`` on plain data (2), so the layout optimizer makes
        the layer blocked where this kernel validates."""
        return FORCE_PRIORITY_1

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(data, weights[, bias], output)."""
        pool, pooled = fused_pool(params), params.output
        if pool is not None:  # the convolution alone into its blocked planes, then the pooling (pooled: the output)
            params = blocked_conv_params(params)
        a, _, x_lay, _, out_lay, n_img, c, h, wd, oc, icg, kh, kw, _, _, k, oh, ow, npix = shape_of(params)
        n_own = len(params.inputs)
        has_bias = int(n_own > 2)
        bounds, flags, res_at, _ = split_chain(list(params.fused_ops), out_lay, blocked=True)
        rm = row_map(params.fused_ops[res_at].extra_inputs[0]) if res_at >= 0 else None  # the residual's
        r_y = int(rm[3]) if rm is not None else 0
        sy, sx, dy, dx = int(a.stride[0]), int(a.stride[1]), int(a.dilation[0]), int(a.dilation[1])
        p, po = x_lay.pitches, out_lay.pitches
        copy = not covers_halo(params)  # an input without the halo: a zero-bordered copy
        plain_copy = copy and x_lay.format == Format.bfyx  # a network's input: zero-bordered planes
        if copy:
            by, ay, bx, ax = input_halo(params)
            hq, wq = h + by + ay, wd + bx + ax
        if plain_copy:
            x_img = c * hq * wq
            scratch = np.zeros(n_img * x_img, np.float32)
            koff = plain_grid_offsets(icg, kh, kw, dy, dx, hq, wq)
            x0 = (by - a.pad[0]) * wq + (bx - a.pad[1])
            gw, sai = sy * wq, sx
            xd = tensor_desc(x_lay)
        elif copy:
            n_blk = -(-c // 16)
            p_blk, p_img = hq * wq * 16, -(-c // 16) * hq * wq * 16
            scratch = np.zeros(n_img * p_img, np.float32)
            koff = blocked_offsets(icg, kh, kw, dy, dx, x_lay.with_(padding=Padding((0, 0, by, bx), (0, 0, ay, ax))))
            x0 = (by - a.pad[0]) * wq * 16 + (bx - a.pad[1]) * 16
            x_img, gw, sai = p_img, sy * wq * 16, sx * 16
        else:
            koff = blocked_offsets(icg, kh, kw, dy, dx, x_lay)
            x0 = layout_offset(x_lay) - a.pad[0] * p["y"] - a.pad[1] * p["x"]
            x_img, gw, sai = p["b"], sy * p["y"], sx * p["x"]
        c_y = po["y"]
        if pool is None and flat_image(a, kh, kw, wd, p["x"], p["y"], ow, po["x"], po["y"]) and \
                (rm is None or r_y == ow * 16):
            oh, ow = flat_rows(oh, ow, k)  # the image as rows of another width (1×1, stride 1, rows back to back)
            gw, c_y, r_y = ow * p["x"], ow * po["x"], ow * 16
        r_map = (int(rm[0]), int(rm[1]), int(rm[2])) if rm is not None else (-1, 0, 0)  # offset, image, block
        alt = alt_tile(k, npix, ow)
        tile_c = tile_of(alt)[1]
        threads = numba.get_num_threads()
        parts = oc_chunks(n_img * -(-oc // tile_c), oh, threads)
        launch = Launcher(n_img * (oc * k * npix // 8 + (k + oc) * npix), chunk=1)
        launch_copy = Launcher(n_img * c * h * wd)
        bias_pad = np.zeros(-(-oc // PANEL) * PANEL, np.float32)  # the tiles read a whole panel of bias
        oc_flags = flags | oc_prefetch_flags(kh * kw > 1, 4 * oc * k)
        c_off = layout_offset(out_lay)
        x_in = layout_offset(x_lay)
        plain_out = out_lay.format == Format.bfyx  # from a blocked input: cpu_conv_oc's row tiles, rows transposed
        no_codes, fa, fb, _ = chain_arrays([], out_lay)

        if pool is not None:
            pa = pool_attrs(pool)
            ky_p, kx_p, sy_p, sx_p, pt, pl = (int(v) for v in pool_window(pa))
            poh, pow_ = int(pooled.dims4[2]), int(pooled.dims4[3])
            mode = MODES[PoolingMode(pa.mode)]
            ywin, cols = row_windows(oh, poh, ky_p, sy_p, pt, 1), column_taps(ow, pow_, kx_p, sx_p, pl, 1)
            divs = window_divisors(pa, oh, ow) if mode else np.ones(1, np.float32)
            band = band_rows_blocked(tile_c, ow, ky_p, sy_p, poh, BAND_BYTES)
            slot = -(-band * ow * 16 * -(-tile_c // 16) // 16) * 16 + 16  # whole lines, one apart
            pool_scratch = np.empty(int(numba.config.NUMBA_NUM_THREADS) * slot, np.float32)  # type: ignore[attr-defined]
            taps = tap_tables(ky_p, kx_p)
            pool_parts = oc_chunks(n_img * -(-oc // tile_c), poh, threads)
            pm = row_map(pooled)

        def fn(*bufs: Any) -> None:
            x, wp, out = f32_view(bufs[0]), f32_view(bufs[1]), f32_view(bufs[n_own])
            if has_bias:
                bias_pad[:oc] = f32_view(bufs[2])[:oc]
            src = x
            if plain_copy:
                launch_copy(pad_planes, x, xd, 0, n_img, scratch, x_img, c, h, wd, hq, wq, by, bx, 1, 1)
                src = scratch
            elif copy:
                launch_copy(pad_blocked, x, x_in, p["b"], p["f"], p["y"], n_blk, h, wd, scratch, p_img, p_blk,
                            wq * 16, by, bx, n_img)
                src = scratch
            if pool is not None:
                launch(oc_row_tiles_blocked_pool, src, x0, x_img, koff, gw, sai, oh, ow, k, wp, oc, bias_pad, has_bias,
                       bounds, oc_flags, n_img, pool_parts, alt, 1, mode, 1, ywin, cols, divs, out, int(pm[0]),
                       int(pm[1]), int(pm[2]), int(pm[3]), pool_scratch, band, slot, taps)
                return
            if plain_out:
                launch(oc_row_tiles, src, x0, x_img, koff, gw, sai, oh, ow, k, wp, oc, out, c_off, po["b"], po["f"],
                       c_y, bias_pad, has_bias, bounds, oc_flags, no_codes, fa, fb, n_img, parts, 0, EMPTY, -1, 0,
                       0, 0, alt, 0, 1, 0)
                return
            res = f32_view(bufs[n_own + 1]) if rm is not None else EMPTY  # the residual sum in the epilogue
            launch(oc_row_tiles_blocked, src, x0, x_img, koff, gw, sai, oh, ow, k, wp, oc, out, c_off, po["b"],
                   po["f"], c_y, bias_pad, has_bias, bounds, oc_flags, n_img, parts, res, *r_map, r_y, alt, 1)

        return fn
