"""Depthwise convolution of small planes on the CPU engine, computed channels-last (byxf) between two transposes.

``convolution_cpu_depthwise`` works plane by plane in bfyx: per plane a zero-bordered copy (stride phases) and one
loop per tap over the whole plane. On 7×7 and 14×14 planes those loops are 49-200 elements long, and the fixed cost
per plane and tap outweighs the arithmetic (576 channels of 7×7 with a 5×5 filter: 0.36 ms, 4 GFLOP/s). Here the
input is transposed once into a zero-bordered channels-last scratch (rows of W·C), every tap of every output pixel
is one loop over the C channels (vectors across channels, as oneDNN's and onnxruntime's NCHWc depthwise kernels),
and each output row is transposed back into the bfyx output after its activations ran on it. Measured against the
plane kernel in one process (2 threads, isolated layers): 576 × 7² 5×5 0.36× with relu, 0.56× with hard_swish
through the kernel; 544 × 7² 3×3 0.32×, 288 × 14² 5×5 stride 2 (7×7 out) 0.41×; about equal on 14×14 outputs,
slower on 88-136 × 28² stride 1 (1.2-1.35×) and 16 × 112² stride 2 (2.3×), hence :func:`use_channels_last`.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ...common.cpu_epilogue import I0, chain_span
from ...common.elementwise_numba import NJIT

CL_MIN_CHANNELS = 32
"""Channels-last needs at least this many channels (a tap's loop runs over them)."""
CL_MAX_PIXELS = 64
"""... and an output plane of at most this many pixels (7×7, 8×8). On 14×14 the two forms measured equal within
noise inside networks (isolated 0.91-0.97× with hard_swish), on 28×28 stride 1 this one 1.2-1.35× slower."""


def use_channels_last(c: int, oh: int, ow: int) -> bool:
    """True when a depthwise layer of ``c`` channels and an OH × OW output should run :func:`depthwise_cl`."""
    return c >= CL_MIN_CHANNELS and oh * ow <= CL_MAX_PIXELS


def cl_scratch_shape(n: int, c: int, oh: int, ow: int, kh: int, kw: int, sy: int, sx: int, dy: int,
                     dx: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Shapes of the two scratch arrays of :func:`depthwise_cl`: the zero-bordered input (N·HP, WP·C), HP and WP
    the padded rows and columns the output reads, and the output rows (N·OH, OW·C)."""
    hp, wp = (oh - 1) * sy + (kh - 1) * dy + 1, (ow - 1) * sx + (kw - 1) * dx + 1
    return (n * hp, wp * c), (n * oh, ow * c)


@numba.njit(parallel=True, **NJIT)
def depthwise_cl(out: np.ndarray, mo: np.ndarray, x: np.ndarray, mi: np.ndarray, w: np.ndarray, bias: np.ndarray,
                 geo: np.ndarray, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray,
                 xp: np.ndarray, acc: np.ndarray, wt: np.ndarray) -> None:  # pragma: no cover - numba
    """``geo`` = (N, C, H, W, OH, OW, KH, KW, SY, SX, DY, DX, PY, PX); ``mi`` / ``mo`` = (offset, b, f, y, x
    pitches) of the input and output (cpu_layout.row_map); weights (C, 1, KH, KW) flat, transposed into ``wt``
    (KH·KW, C) first; ``bias`` (C,), zeros when the layer has none; ``xp`` (:func:`cl_scratch_shape`) must hold
    zeros outside the interior it writes (allocated zeroed, only interiors are ever written); ``acc`` the output
    rows. The activations ``codes`` (no eltwise operand) run on each channels-last row before it is transposed
    out."""
    nb, nc, h, wd, oh, ow = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5]
    kh, kw, sy, sx, dy, dx, py, px = geo[6], geo[7], geo[8], geo[9], geo[10], geo[11], geo[12], geo[13]
    hp = xp.shape[0] // nb
    wp = xp.shape[1] // nc
    no_res = np.empty(0, np.float32)
    taps = kh * kw
    for ch in range(nc):
        for t in range(taps):
            wt[t, ch] = w[ch * taps + t]
    # input rows into the bordered channels-last scratch (rows and columns the output never reads are skipped)
    x_lo, x_hi = max(0, -px), min(wd, wp - px)
    for t in prange(nb * h):
        n = t // h
        iy = t % h
        r = iy + py
        if r < 0 or r >= hp:
            continue
        row = xp[n * hp + r]
        for ch in range(nc):
            s0 = mi[0] + n * mi[1] + ch * mi[2] + iy * mi[3]
            if mi[4] == 1:
                src = x[s0 + x_lo:s0 + x_hi]
                dst = row[(x_lo + px) * nc + ch:]
                for j in range(x_hi - x_lo):
                    dst[j * nc] = src[j]
            else:
                for ix in range(x_lo, x_hi):
                    row[(ix + px) * nc + ch] = x[s0 + ix * mi[4]]
    for t in prange(nb * oh):
        n = t // oh
        oy = t % oh
        a = acc[t]
        for ox in range(ow):
            ao = a[ox * nc:ox * nc + nc]
            for ch in range(nc):
                ao[ch] = bias[ch]
        for ky in range(kh):
            xr = xp[n * hp + oy * sy + ky * dy]
            for kx in range(kw):
                wv = wt[ky * kw + kx]
                for ox in range(ow):
                    ao = a[ox * nc:ox * nc + nc]
                    s = (ox * sx + kx * dx) * nc
                    xs = xr[s:s + nc]
                    for ch in range(nc):
                        ao[ch] += wv[ch] * xs[ch]
        if codes.shape[0]:
            chain_span(a, I0, ow * nc, codes, fa, fb, no_res, I0, I0)
        for ch in range(nc):
            d0 = mo[0] + n * mo[1] + ch * mo[2] + oy * mo[3]
            src = a[ch:]
            if mo[4] == 1:
                dst = out[d0:d0 + ow]
                for ox in range(ow):
                    dst[ox] = src[ox * nc]
            else:
                for ox in range(ow):
                    out[d0 + ox * mo[4]] = src[ox * nc]
