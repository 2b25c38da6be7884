"""Stride-1 "same" poolings on the CPU engine by the IR kernel of
:mod:`kernel_selector.common.cpu_microkernel_pool_same`, a form of ``pooling_cpu_planes`` (SAME_KERNEL): the whole
batch's planes as one flat stack, split into runs of vectors among the threads, each run one kernel call and then the
fused activations over its outputs."""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import prange

from ...common.cpu_epilogue import I0, chain_span
from ...common.cpu_microkernel import W
from ...common.cpu_microkernel_pool_same import pool_same
from ...common.elementwise_numba import NJIT

RUN_VECTORS = 256
"""Output vectors per task at most (4096 floats with AVX-512: a few planes of 14×14, enough tasks for balance)."""


def same_tables(h: int, w: int, win: np.ndarray, divs: np.ndarray,
                lanes: int = W) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(masks int32 (P, T), tap offsets int64 (T), divisors float32 (P, lanes), P) of a stride-1 pooling of window
    ``win`` (KY, KX, SY, SX, PY, PX, PY_end, PX_end, DY, DX) whose output planes are the input's H × W, with ``divs``
    (H, W) its divisors: P = lcm(H·W, lanes) / lanes vectors repeat the planes' pattern; bit j of masks[r, t] is set
    when lane j of a vector at row r of the period has tap t inside its plane."""
    ky_n, kx_n, py, px, dy, dx = (int(win[i]) for i in (0, 1, 4, 5, 8, 9))
    hw = h * w
    period = math.lcm(hw, lanes) // lanes
    pos = np.arange(period * lanes) % hw
    y, x = pos // w, pos % w
    offs, valid = [], []
    for ky in range(ky_n):
        for kx in range(kx_n):
            iy, ix = y - py + ky * dy, x - px + kx * dx
            offs.append((ky * dy - py) * w + kx * dx - px)
            valid.append((iy >= 0) & (iy < h) & (ix >= 0) & (ix < w))
    bits = np.stack(valid, axis=1).reshape(period, lanes, len(offs))  # (P, lanes, T)
    masks = (bits.astype(np.int64) << np.arange(lanes)[None, :, None]).sum(axis=1)
    masks = np.where(masks >= 1 << 31, masks - (1 << 32), masks).astype(np.int32)  # lane 31 set: the sign bit
    div = np.ascontiguousarray(divs.reshape(-1)[pos].reshape(period, lanes), np.float32)
    return np.ascontiguousarray(masks), np.array(offs, np.int64), div, period


@numba.njit(parallel=True, **NJIT)
def pool_same_runs(out: np.ndarray, o_off: int, x: np.ndarray, x_off: int, n: int, masks: np.ndarray,
                   offs: np.ndarray, divs: np.ndarray, period: int, is_max: bool, runs: int, codes: np.ndarray,
                   fa: np.ndarray, fb: np.ndarray) -> None:  # pragma: no cover - numba
    """A stride-1 "same" pooling over a stack of ``n`` elements (whole planes, input at ``x[x_off:]``, output at
    ``out[o_off:]``) in ``runs`` tasks of consecutive output vectors, then the activations ``codes`` (no operand)
    over each task's outputs. Tables from :func:`same_tables`."""
    n_vec = (n + W - 1) // W
    taps = offs.shape[0]
    no_res = np.empty(0, np.float32)
    for r in prange(runs):
        v0, v1 = n_vec * r // runs, n_vec * (r + 1) // runs
        if v1 <= v0:
            continue
        pool_same(x, x_off, out, o_off, n, v0, v1, period, masks.reshape(-1), offs, taps, divs.reshape(-1),
                  1 if is_max else 0)
        if codes.shape[0]:
            e0 = v0 * W
            chain_span(out, o_off + e0, min(v1 * W, n) - e0, codes, fa, fb, no_res, I0, I0)
