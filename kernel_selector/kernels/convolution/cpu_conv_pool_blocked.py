"""A max or average pooling fused into ``convolution_cpu_oc_blocked``'s row tiles: bands of b_fs_yx_fsv16 rows pooled
while in L2 (CPU engine).

The blocked counterpart of :mod:`.cpu_conv_pool`. SqueezeNet's fire modules end in a feature concatenation of two
convolutions (64 channels each at 55×55, 12.4 MB at batch 8) that a 3×3 stride-2 max pooling reads once and keeps a
quarter of; GoogLeNet's and Inception's reductions are the same shape. Here a thread computes a band of the
convolution's output rows for one tile of channels into its own scratch, in the blocked format (16 channels of a
pixel contiguous: block j, row r at ``j·(rows·OW·16) + r·OW·16``), and pools the band's pooled rows into the output
with the b_fs_yx_fsv16 pixel micro-kernel of ``pooling_cpu_fsv16``
(:func:`~kernel_selector.kernels.pooling.cpu_pooling_blocked.pool_row`: every pixel's window in registers, tables of
the taps inside the planes). The convolution's tensor is never written to memory. The pass
``cldnn_py/passes/fuse_pool_into_conv.py`` fuses the pooling (through a concatenation into each of its convolutions);
this is the pooling-into-producer fusion of TVM's and XLA's CPU schedules, the band order Halide's ``compute_at``.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ...common.elementwise_numba import NJIT
from ..pooling.cpu_pooling_blocked import pool_row
from .cpu_conv_oc import row_task, tile_of
from .cpu_conv_oc_blocked import blocked_row


@numba.njit(parallel=True, **NJIT)
def oc_row_tiles_blocked_pool(x: np.ndarray, x_off: int, x_img: int, koff: np.ndarray, gw: int, sai: int, oh: int,
                              ow: int, k: int, wp: np.ndarray, oc: int, bias: np.ndarray, has_bias: int,
                              clamp: np.ndarray, flags: int, n_img: int, chunks: int, alt: int, overlap: int,
                              mode: int, dy: int, ywin: np.ndarray, cols: np.ndarray, divs: np.ndarray,
                              out: np.ndarray, o_off: int, o_img: int, o_blk: int, o_y: int, scratch: np.ndarray,
                              rows: int, slot: int, taps: np.ndarray) -> None:  # pragma: no cover - numba
    """The convolution of :func:`.cpu_conv_oc_blocked.oc_row_tiles_blocked` (the same input, weight and register
    epilogue arguments; no residual) followed by a pooling into an ``n_img`` × OC × POH × POW b_fs_yx_fsv16 output:
    pooled (i, o, q, ox) at ``out[o_off + i·o_img + (o div 16)·o_blk + q·o_y + 16·ox + o mod 16]``; ``mode`` 0 max,
    1 or 2 average (``divs``: the divisors, POH · POW); ``ywin`` (POH, 3) and ``cols``: the pooling's row windows
    and column taps over the OH × OW convolution planes
    (:func:`~kernel_selector.kernels.pooling.cpu_pooling_blocked.row_windows`, ``column_taps``), ``dy`` its
    dilation.

    A task is one (image, tile of channels, range of pooled rows); it walks its pooled rows in bands whose
    convolution rows (at most ``rows``) it computes into its thread's ``slot`` floats of ``scratch`` and pools. Rows a
    band shares with the one before are moved to its start rather than computed again; a row two tasks share is
    computed by each. ``taps``: int64 (threads, >= KY·KX) tap tables."""
    px, tc = tile_of(alt)
    nt = (oc + tc - 1) // tc
    poh = ywin.shape[0]
    pow_ = cols.shape[0] - 1
    s_blk, s_y = rows * ow * 16, ow * 16
    no_res = np.empty(0, np.float32)
    last = ow - px if overlap and ow >= px else ow
    for task in prange(n_img * nt * chunks):
        part, im, o0, hi = row_task(task, chunks, nt, tc, oc)
        tid = numba.get_thread_id()
        tab = taps[tid]
        sb = tid * slot
        xb = x_off + im * x_img
        ob = o_off + im * o_img + (o0 // 16) * o_blk
        bo = o0 if has_bias else -1
        nb = (hi + 15) // 16
        p0, p1 = poh * part // chunks, poh * (part + 1) // chunks
        q0 = p0
        pa0 = done = 0  # the last band's first row and the row after it
        while q0 < p1:
            a0 = ywin[q0, 0] + ywin[q0, 1] * dy
            q1 = q0 + 1  # as many pooled rows as the band's rows hold
            while q1 < p1 and ywin[q1, 0] + (ywin[q1, 2] - 1) * dy + 1 - a0 <= rows:
                q1 += 1
            a1 = max(a0, ywin[q1 - 1, 0] + (ywin[q1 - 1, 2] - 1) * dy + 1)
            start = a0
            if q0 > p0 and done > a0:  # rows the last band computed too: moved to the band's start, not redone
                for j in range(nb):
                    d = sb + j * s_blk
                    v = scratch[d + (a0 - pa0) * s_y:d + (done - pa0) * s_y]
                    for i in range((done - a0) * s_y):
                        scratch[d + i] = v[i]
                start = done
            for oy in range(start, a1):
                blocked_row(x, xb + oy * gw, koff, sai, ow, px, last, wp, o0 * k, k, scratch, sb + (oy - a0) * s_y,
                            s_blk, hi, bias, bo, no_res, -1, 0, clamp, flags, alt)
            pa0, done = a0, a1
            for j in range(nb):
                plane = sb + j * s_blk - a0 * s_y
                for q in range(q0, q1):
                    pool_row(scratch, plane, s_y, ywin[q, 0], ywin[q, 1], ywin[q, 2], dy, cols, mode, out,
                             ob + j * o_blk + q * o_y, divs, q * pow_, tab)
            q0 = q1


def band_rows_blocked(tile_channels: int, ow: int, ky: int, sy: int, poh: int, budget: int) -> int:
    """Convolution rows a band holds: ``budget`` bytes of ``tile_channels`` (whole blocks of 16) rows of ``ow``
    pixels, at least the window's ``ky`` rows, at most the rows all ``poh`` pooled rows read."""
    fit = budget // max(1, 4 * -(-tile_channels // 16) * 16 * ow)
    return max(ky, min(fit, (poh - 1) * sy + ky))
