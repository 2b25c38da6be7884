"""The padded-grid form of a stride-1 convolution for the CPU engine's packed GEMM (implicit im2col).

With the input copied once into zero-bordered planes of Hp × Wp (Hp = OH + (KH−1)·dy, Wp = OW + (KW−1)·dx), the
patch matrix needs no copy at all: on a grid of OH rows of Wp columns, patch row (c, ky, kx) at grid pixel q is
``xpad[c·Hp·Wp + ky·dy·Wp + kx·dx + q]``, the padded plane read at a fixed offset (``grid_offsets``). The GEMM then
packs each column panel straight from the padded planes (one input-sized copy instead of KH·KW of them: a 3×3 layer
with 16 output channels at 80×80 wrote a 14.7 MB patch matrix for 118 MFLOP), computes the output on the grid, and
the OW valid columns of every grid row are copied out (:func:`grid_to_output`); the (KW−1)·dx extra columns per
row are the price (2/58 of a 56-wide 3×3 layer, 2/9 at 7 wide). The same offset trick as the depthwise kernel's
padded planes, applied to the GEMM's B operand (the "implicit GEMM" of cuDNN and oneDNN's brgemm convolutions).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ...common.elementwise_numba import NJIT


def grid_geometry(oh: int, ow: int, kh: int, kw: int, dy: int, dx: int, icg: int) -> tuple[int, int, int,
                                                                                          np.ndarray]:
    """(Hp, Wp, grid pixels (OH−1)·Wp + OW, int64 offsets of the K = icg·KH·KW patch rows in a group's padded
    planes)."""
    hp, wp = oh + (kh - 1) * dy, ow + (kw - 1) * dx
    c, ky, kx = np.meshgrid(np.arange(icg), np.arange(kh), np.arange(kw), indexing="ij")
    offs = (c * hp * wp + ky * dy * wp + kx * dx).reshape(-1).astype(np.int64)
    return hp, wp, (oh - 1) * wp + ow, offs


@numba.njit(parallel=True, **NJIT)
def pad_planes(x: np.ndarray, xd: np.ndarray, n: int, xpad: np.ndarray, c_all: int, h: int, w: int, hp: int,
               wp: int, py: int, px: int) -> None:  # pragma: no cover - numba
    """Copy image ``n`` of ``x`` (tensor descriptor ``xd``, cpu_conv_common.tensor_desc) into the interior of the
    zero-bordered planes ``xpad`` (C × Hp × Wp; the border is zero from allocation and never written)."""
    n_c = min(w, wp - px)
    for c in prange(c_all):
        s0 = xd[0] + n * xd[1] + (c // 16) * xd[2] + (c % 16) * xd[3]
        for iy in range(h):
            r = iy + py
            if r >= hp:
                break
            dst = xpad[(c * hp + r) * wp + px:(c * hp + r) * wp + px + n_c]
            if xd[5] == 1:
                src = x[s0 + iy * xd[4]:s0 + iy * xd[4] + n_c]
                for j in range(n_c):
                    dst[j] = src[j]
            else:
                for j in range(n_c):
                    dst[j] = x[s0 + iy * xd[4] + j * xd[5]]


@numba.njit(parallel=True, **NJIT)
def grid_to_output(grid: np.ndarray, npg: int, wp: int, out: np.ndarray, mo: np.ndarray, n: int, oc: int, oh: int,
                   ow: int) -> None:  # pragma: no cover - numba
    """out[n, o, oy, 0:OW] = grid[o·npg + oy·Wp : + OW] for a bfyx output of row map ``mo`` (offset, b, f, y, x
    pitches; padding allowed, e.g. a slice of a concatenation)."""
    for t in prange(oc * oh):
        o = t // oh
        oy = t % oh
        src = grid[o * npg + oy * wp:o * npg + oy * wp + ow]
        d0 = mo[0] + n * mo[1] + o * mo[2] + oy * mo[3]
        dst = out[d0:d0 + ow]
        for j in range(ow):
            dst[j] = src[j]
