"""Channel-vector row tiles into a ``b_fs_yx_fsv16`` output: the tile loop of ``convolution_cpu_oc_blocked``.

:func:`~.cpu_conv_oc.oc_row_tiles` keeps 16 output channels of a pixel in each accumulator and then transposes every
tile in registers to store bfyx rows (14 × 32 tile: 56 shuffles and 32 row stores per tile, with the row epilogue).
Into the blocked format (16 channels of a pixel contiguous, onnxruntime's NCHWc and oneDNN's nChw16c) the
accumulators are stored as they are
(:func:`~kernel_selector.common.cpu_microkernel_oc.make_micro_kernel_oc_rows_blocked`):
SqueezeNet's layers at batch 8, with the stores changed so in an experiment, 19.7 → 16.7 ms in all, its 16 → 64
1×1 layers at 55×55 0.59 → 0.16 ms. The input is read in place through a table of K offsets (the patch rows
(c, ky, kx) of a bfyx or b_fs_yx_fsv16 input, the halo in its padding, :func:`blocked_offsets`), or from a
zero-bordered copy (:func:`pad_blocked`) when the input's padding does not hold the halo.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import Format, Layout

from ...common.cpu_microkernel import PANEL, W
from ...common.cpu_microkernel_oc import (
    ALT_CHANNELS,
    ALT_PIXELS,
    ALT_VECTORS,
    OC_PIXELS,
    OC_VECTORS,
    make_micro_kernel_oc_rows_blocked,
)
from ...common.elementwise_numba import NJIT
from .cpu_conv_grid import in_place_offsets
from .cpu_conv_oc import row_task, tile_of

micro_rows_blocked = make_micro_kernel_oc_rows_blocked(OC_PIXELS, OC_VECTORS, W)
micro_rows_blocked_panel = (make_micro_kernel_oc_rows_blocked(OC_PIXELS, PANEL // W, W)
                            if OC_VECTORS * W > PANEL else micro_rows_blocked)
micro_rows_blocked_alt = (make_micro_kernel_oc_rows_blocked(ALT_PIXELS, ALT_VECTORS, W) if W == 16
                          else micro_rows_blocked_panel)


def blocked_offsets(icg: int, kh: int, kw: int, dy: int, dx: int, lay: Layout) -> np.ndarray:
    """int64 offsets of the K = icg·KH·KW patch rows (c, ky, kx), the order of an ``os_iyx_osv16`` panel, in an
    input read in place: :func:`~.cpu_conv_grid.in_place_offsets` for bfyx; in b_fs_yx_fsv16 channel c at (c div
    16)·(block pitch) + c mod 16, plus ky·dy·(y pitch) + kx·dx·(x pitch) (padding counted in the pitches)."""
    if lay.format != Format.b_fs_yx_fsv16:
        return in_place_offsets(icg, kh, kw, dy, dx, lay)
    p = lay.pitches
    c, ky, kx = np.meshgrid(np.arange(icg), np.arange(kh), np.arange(kw), indexing="ij")
    return ((c // 16) * p["f"] + c % 16 + ky * dy * p["y"] + kx * dx * p["x"]).reshape(-1).astype(np.int64)


@numba.njit(parallel=True, **NJIT)
def pad_blocked(x: np.ndarray, x0: int, x_img: int, blk: int, ldy: int, n_blk: int, h: int, w: int, xp: np.ndarray,
                p_img: int, p_blk: int, p_ldy: int, py: int, px: int, cnt: int) -> None:  # pragma: no cover - numba
    """Copy ``cnt`` images of a b_fs_yx_fsv16 tensor (image i, block b, row y at ``x[x0 + i·x_img + b·blk + y·ldy
    :]``, W pixels of 16 floats) into zero-bordered slots of ``xp`` (image i, block b at ``i·p_img + b·p_blk``, rows
    ``p_ldy`` apart, the interior from row ``py``, pixel ``px``); the border stays as allocated (zeros)."""
    for t in prange(cnt * n_blk * h):
        y = t % h
        b = (t // h) % n_blk
        i = t // (h * n_blk)
        s = x0 + i * x_img + b * blk + y * ldy
        d = i * p_img + b * p_blk + (y + py) * p_ldy + px * 16
        for j in range(16 * w):
            xp[d + j] = x[s + j]


@numba.njit(**NJIT)
def blocked_row(x: np.ndarray, xo_row: int, koff: np.ndarray, sai: int, ow: int, px: int, last: int, wp: np.ndarray,
                w_off: int, k: int, c: np.ndarray, co_row: int, c_blk: int, hi: int, bias: np.ndarray, bo: int,
                res: np.ndarray, ro_row: int, r_blk: int, clamp: np.ndarray, flags: int,
                alt: int) -> None:  # pragma: no cover - numba
    """One output row of ``hi`` channels in tiles of ``px`` pixels (:func:`~.cpu_conv_oc.tile_of`): pixel ox reads
    patch row k at ``x[xo_row + ox·sai + koff[k]]`` and stores channel o at ``c[co_row + (o div 16)·c_blk + 16·ox + o
    mod 16]`` (residual likewise at ``ro_row`` when >= 0); the last partial tile starts at ``last`` at most (an overlap
    that moves it back to end at the row's end)."""
    for ox_t in range(0, ow, px):
        ox0 = min(ox_t, last)
        xo, n, co = xo_row + ox0 * sai, min(px, ow - ox0), co_row + 16 * ox0
        ro = ro_row + 16 * ox0 if ro_row >= 0 else -1
        if alt and hi <= PANEL < ALT_CHANNELS:  # one panel under a two-panel second tile
            for q in range(0, n, OC_PIXELS):
                micro_rows_blocked_panel(x, xo + q * sai, koff, sai, min(OC_PIXELS, n - q), wp, w_off, k, c,
                                         co + 16 * q, c_blk, 0, hi, bias, bo, res, ro + 16 * q if ro >= 0 else -1,
                                         r_blk, clamp, flags)
        elif alt:
            micro_rows_blocked_alt(x, xo, koff, sai, n, wp, w_off, k, c, co, c_blk, 0, hi, bias, bo, res, ro, r_blk,
                                   clamp, flags)
        elif hi > PANEL:
            micro_rows_blocked(x, xo, koff, sai, n, wp, w_off, k, c, co, c_blk, 0, hi, bias, bo, res, ro, r_blk, clamp,
                               flags)
        else:
            micro_rows_blocked_panel(x, xo, koff, sai, n, wp, w_off, k, c, co, c_blk, 0, hi, bias, bo, res, ro, r_blk,
                                     clamp, flags)


@numba.njit(parallel=True, **NJIT)
def oc_row_tiles_blocked(x: np.ndarray, x_off: int, x_img: int, koff: np.ndarray, gw: int, sai: int, oh: int, ow: int,
                         k: int, wp: np.ndarray, oc: int, c: np.ndarray, c_off: int, c_img: int, c_blk: int, c_y: int,
                         bias: np.ndarray, has_bias: int, clamp: np.ndarray, flags: int, n_img: int, chunks: int,
                         res: np.ndarray, r_off: int, r_img: int, r_blk: int, r_y: int, alt: int,
                         overlap: int) -> None:  # pragma: no cover - numba
    """Channel-vector tiles (:func:`~.cpu_conv_oc.tile_of`: channels × pixels of one output row) of ``n_img`` images
    into a b_fs_yx_fsv16 output.

    Output pixel (oy, ox) of image i reads patch row k at ``x[x_off + i·x_img + oy·gw + ox·sai + koff[k]]``
    (:func:`blocked_offsets`; ``x_off`` at the image's element (0, −pad_y, −pad_x)); output channel o of that pixel
    is written at ``c[c_off + i·c_img + (o div 16)·c_blk + oy·c_y + 16·ox + o mod 16]``; weights ``wp`` in
    ``os_iyx_osv16`` panels of K = ``k`` rows; ``bias`` padded to whole panels. Epilogue in registers: bias, clamps
    and fake quantizations by ``flags`` (``clamp``), a residual when ``r_off >= 0`` at ``res[r_off + i·r_img + (o div
    16)·r_blk + oy·r_y + 16·ox + o mod 16]``. A task is one (image, tile of channels, range of output rows), the
    range fastest; ``chunks`` ranges per tile. ``alt``: the second tile; ``overlap``: a row's last, partial tile moves
    back to end at the row's end (no residual: its buffer could be the output's own)."""
    px, tc = tile_of(alt)
    nt = (oc + tc - 1) // tc
    for task in prange(n_img * nt * chunks):
        part, im, o0, hi = row_task(task, chunks, nt, tc, oc)
        w_off = o0 * k
        xb = x_off + im * x_img
        cb = c_off + im * c_img + (o0 // 16) * c_blk
        rb = r_off + im * r_img + (o0 // 16) * r_blk if r_off >= 0 else -1
        bo = o0 if has_bias else -1
        y0, y1 = oh * part // chunks, oh * (part + 1) // chunks
        last = ow - px if overlap and rb < 0 and ow >= px else ow
        for oy in range(y0, y1):
            blocked_row(x, xb + oy * gw, koff, sai, ow, px, last, wp, w_off, k, c, cb + oy * c_y, c_blk, hi, bias, bo,
                        res, rb + oy * r_y if rb >= 0 else -1, r_blk, clamp, flags, alt)
