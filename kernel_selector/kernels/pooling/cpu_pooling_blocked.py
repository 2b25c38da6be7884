"""The b_fs_yx_fsv16 loop nest of ``pooling_cpu_fsv16``: each output pixel's window in registers, 16 channels a
vector (:mod:`kernel_selector.common.cpu_microkernel_pool_fsv16`).

One task per band of output rows of a (batch, feature slice) plane. Each row's window rows inside the image and
each pixel's taps inside it are tables built once per kernel (:func:`row_windows`, :func:`column_taps`). The pixels
whose every tap is inside (the interior: all but a pixel or two at each end) share one table of tap offsets and run
PIXELS at a time through the IR micro-kernel, SX·16 floats apart; each border pixel gets its own table of the taps
inside the image (pad positions are never read, so a padded input's halo is never data). The pixels go straight
into the output row, or through a scratch row when the slice's last lanes lie past the channel count (an in-place
concatenation's other tensor may own them); the fused chain (:mod:`..cpu_epilogue`) runs on the row. This is
oneDNN's and MLAS's NCHWc pooling order. The former numba form (one accumulator row updated tap by tap) compiled to
scalar code: SqueezeNet b8's 3×3 stride-2 pooling of 8 × 128 × 55² took 1.27 ms, this one 0.12-0.16 ms alone and
0.55 ms in the network (its input then comes from memory) on the 2-core Zen 5 VM.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ...common.cpu_epilogue import I0, NJIT, chain_span, lane_step, operand_index
from ...common.cpu_microkernel_pool_fsv16 import PIXELS, max_pixel, max_pixels, sum_pixel, sum_pixels

TASK_PIXELS = 512
"""Output pixels a task of :func:`pool_rows_blocked` takes at least (whole rows): with a task per row, SqueezeNet b8's
27-pixel rows, the pooling ran at half the speed of the same loops over planes (0.15 against 0.08 ms)."""


@numba.njit(**NJIT)
def _pixels(x: np.ndarray, x0: int, toff: np.ndarray, nt: int, step: int, lo: int, hi: int, mode: int,
            dst: np.ndarray, d0: int, divs: np.ndarray, v0: int) -> None:  # pragma: no cover - numba
    """Output pixels ``lo`` <= j < ``hi`` of a row: tap t of pixel j at ``x[x0 + j·step + toff[t]]``, pixel j to
    ``dst[d0 + 16·j :]``, its divisor (average) ``divs[v0 + j]``."""
    j = lo
    while j + PIXELS <= hi:
        if mode == 0:
            max_pixels(x, x0 + j * step, toff, nt, step, dst, d0 + 16 * j, divs, v0 + j)
        else:
            sum_pixels(x, x0 + j * step, toff, nt, step, dst, d0 + 16 * j, divs, v0 + j)
        j += PIXELS
    while j < hi:
        if mode == 0:
            max_pixel(x, x0 + j * step, toff, nt, step, dst, d0 + 16 * j, divs, v0 + j)
        else:
            sum_pixel(x, x0 + j * step, toff, nt, step, dst, d0 + 16 * j, divs, v0 + j)
        j += 1


@numba.njit(**NJIT)
def pool_row(x: np.ndarray, plane: int, ldy: int, y0: int, k0: int, k1: int, dy: int, cols: np.ndarray, mode: int,
         dst: np.ndarray, d0: int, divs: np.ndarray, v0: int, toff: np.ndarray) -> None:  # pragma: no cover - numba
    """One output row: window rows ``k0`` <= ky < ``k1`` (those inside the image; input row ``y0 + ky·DY``) of the
    plane at ``x[plane:]``, output pixel ox to ``dst[d0 + 16·ox :]``; ``cols``: :func:`column_taps`; ``toff``: the
    thread's table (>= KY·KX entries). No division here: a row's own cost is what its 13-55 pixels are not."""
    ow, kx_n = cols.shape[0] - 1, cols.shape[1] - 3
    lo, hi, sx = cols[ow, 0], cols[ow, 1], cols[ow, 2]
    nt = 0
    for ky in range(k0, k1):
        ry = (y0 + ky * dy) * ldy
        for kx in range(kx_n):
            toff[nt] = ry + cols[ow, 3 + kx]
            nt += 1
    _pixels(x, plane, toff, nt, sx * 16, lo, hi, mode, dst, d0, divs, v0)
    for part in range(2):
        b0, b1 = (0, lo) if part == 0 else (hi, ow)
        for ox in range(b0, b1):
            nt = 0
            for ky in range(k0, k1):
                ry = (y0 + ky * dy) * ldy
                for i in range(cols[ox, kx_n]):
                    toff[nt] = ry + cols[ox, i]
                    nt += 1
            _pixels(x, plane, toff, nt, 0, 0, 1, mode, dst, d0 + 16 * ox, divs, v0 + ox)


def column_taps(w: int, ow: int, kx: int, sx: int, px: int, dx: int) -> np.ndarray:
    """int64 (OW + 1, KX + 3): row ox < OW holds pixel ox's taps inside the image as input offsets
    (column · 16, at most KX of them) and in column KX their count; row OW holds (lo, hi, SX, then the KX tap offsets
    (kx·DX − PX) · 16 relative to the pixel's column ox·SX) for the interior [lo, hi), the pixels whose every tap is
    inside (lo = hi = OW when none is)."""
    t = np.zeros((ow + 1, kx + 3), np.int64)
    inside = np.zeros(ow, bool)
    for ox in range(ow):
        xs = [ox * sx + k * dx - px for k in range(kx)]
        ok = [c * 16 for c in xs if 0 <= c < w]
        t[ox, :len(ok)], t[ox, kx] = ok, len(ok)
        inside[ox] = len(ok) == kx
    idx = np.flatnonzero(inside)
    lo, hi = (int(idx[0]), int(idx[-1]) + 1) if idx.size else (ow, ow)
    if idx.size and not inside[lo:hi].all():  # interior pixels are contiguous for any window; checked, not assumed
        raise AssertionError(f"pooling columns: interior pixels {idx.tolist()} are not contiguous")
    t[ow, :3] = lo, hi, sx
    t[ow, 3:3 + kx] = [(k * dx - px) * 16 for k in range(kx)]
    return t


def row_windows(h: int, oh: int, ky: int, sy: int, py: int, dy: int) -> np.ndarray:
    """int64 (OH, 3): (y0, k0, k1) per output row: its window's first input row y0 = oy·SY − PY and the taps k0 <= ky
    < k1 whose rows y0 + ky·DY lie inside the image (k0 = k1 when none does)."""
    t = np.zeros((oh, 3), np.int64)
    for oy in range(oh):
        y0 = oy * sy - py
        ks = [k for k in range(ky) if 0 <= y0 + k * dy < h]
        t[oy] = (y0, ks[0], ks[-1] + 1) if ks else (y0, 0, 0)
    return t


@numba.njit(**NJIT)
def _chain(dst: np.ndarray, d0: int, ow: int, nl: int, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray,
           res: np.ndarray, mr: np.ndarray, has_res: bool, b: int, fs: int, oy: int) -> None:  # pragma: no cover
    """The fused chain over an output row of ``ow`` pixels at ``dst[d0:]`` (slice ``fs``'s first ``nl`` lanes of a
    pixel where a residual is read, every lane otherwise)."""
    if not has_res:
        chain_span(dst, d0, ow * 16, codes, fa, fb, res, I0, I0)
        return
    step = lane_step(mr)
    for ox in range(ow):
        chain_span(dst, d0 + ox * 16, nl, codes, fa, fb, res, operand_index(mr, b, fs * 16, oy, ox), step)


@numba.njit(parallel=True, **NJIT)
def pool_rows_blocked(out: np.ndarray, mo: np.ndarray, x: np.ndarray, mi: np.ndarray, dims: np.ndarray,
                      win: np.ndarray, mode: int, divs: np.ndarray, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray,
                      res: np.ndarray, mr: np.ndarray, has_res: bool, scratch: np.ndarray,
                      taps: np.ndarray, rows: int, ywin: np.ndarray,
                      cols: np.ndarray) -> None:  # pragma: no cover - numba
    """Pool a b_fs_yx_fsv16 tensor: the arguments of :func:`.pooling_kernel_cpu_fsv16.pool_rows` (``dims`` = (B,
    FS, 16, F, H, W, OH, OW); ``win`` = (KY, KX, SY, SX, PY, PX, PEY, PEX, DY, DX); ``mi`` / ``mo`` = (offset, b,
    slice, y, x pitches), the x pitch 16; ``mode`` 0 max, 1 average, 2 average_no_padding; ``divs`` (OH · OW,) the
    divisors) but no global-pooling shortcut (a global window is a KY × KX one). Output rows of a slice whose last
    lanes lie past F are stored only below F. A pixel no tap of which lies inside the image gives −inf (max) or 0.
    ``scratch``: float32 (threads, OW · 16) and ``taps``: int64 (threads, KY · KX), a row per thread numba may run
    (:func:`blocked_scratch`). A task is ``rows`` output rows of a plane (:func:`task_rows`). ``ywin``:
    :func:`row_windows`, ``cols``: :func:`column_taps` (``win`` is read for DY only)."""
    nb, nfs, nf, oh, ow = dims[0], dims[1], dims[3], dims[6], dims[7]
    dy = win[8]
    parts = (oh + rows - 1) // rows
    for t in prange(nb * nfs * parts):
        part = t % parts
        fs = (t // parts) % nfs
        b = t // (parts * nfs)
        nl = min(16, nf - fs * 16)
        tid = numba.get_thread_id()
        acc, tab = scratch[tid], taps[tid]
        plane = mi[0] + b * mi[1] + fs * mi[2]
        for oy in range(part * rows, min(oh, (part + 1) * rows)):
            obase = mo[0] + b * mo[1] + fs * mo[2] + oy * mo[3]
            y0, k0, k1 = ywin[oy, 0], ywin[oy, 1], ywin[oy, 2]
            # (no ``dst = out if ... else acc``: an array assigned to a variable costs a reference-count pair, atomic
            # on a buffer both threads hold, about as much as the row's pixels)
            if nl == 16:
                pool_row(x, plane, mi[3], y0, k0, k1, dy, cols, mode, out, obase, divs, oy * ow, tab)
                if codes.shape[0] > 0:
                    _chain(out, obase, ow, nl, codes, fa, fb, res, mr, has_res, b, fs, oy)
                continue
            pool_row(x, plane, mi[3], y0, k0, k1, dy, cols, mode, acc, 0, divs, oy * ow, tab)
            if codes.shape[0] > 0:
                _chain(acc, 0, ow, nl, codes, fa, fb, res, mr, has_res, b, fs, oy)
            orow = out[obase:obase + ow * 16]
            for ox in range(ow):
                for lane in range(nl):
                    orow[ox * 16 + lane] = acc[ox * 16 + lane]


def task_rows(oh: int, ow: int) -> int:
    """Output rows per task of :func:`pool_rows_blocked`: at least TASK_PIXELS pixels a task (a task's own cost,
    array views and their reference counts, is about that of 30-60 pixels), at most the plane's OH rows."""
    return max(1, min(oh, -(-TASK_PIXELS // max(1, ow))))


def blocked_scratch(ow: int, ky: int, kx: int) -> tuple[np.ndarray, np.ndarray]:
    """The scratch of :func:`pool_rows_blocked`: a row of OW · 16 floats for every thread numba may run
    (``numba.config.NUMBA_NUM_THREADS``) and :func:`tap_tables`, kept for the kernel's life."""
    threads = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    return np.empty((threads, ow * 16), np.float32), tap_tables(ky, kx)


def tap_tables(ky: int, kx: int) -> np.ndarray:
    """int64 (threads, ...): a table of KY · KX tap offsets for every thread numba may run, each padded to whole
    64-byte lines plus one (two threads writing tables in one cache line ran the pooling at half speed)."""
    threads = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    return np.empty((threads, -(-max(1, ky * kx) // 8) * 8 + 8), np.int64)
