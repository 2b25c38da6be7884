"""The padded-grid form of a convolution for the CPU engine's packed GEMM (implicit im2col).

With the input copied once into zero-bordered planes of Hp × Wp (Hp = OH + (KH−1)·dy, Wp = OW + (KW−1)·dx), the
patch matrix needs no copy at all: on a grid of OH rows of Wp columns, patch row (c, ky, kx) at grid pixel q is
``xpad[c·Hp·Wp + ky·dy·Wp + kx·dx + q]``, the padded plane read at a fixed offset (``grid_offsets``). The GEMM then
packs each column panel straight from the padded planes (one input-sized copy instead of KH·KW of them: a 3×3 layer
with 16 output channels at 80×80 wrote a 14.7 MB patch matrix for 118 MFLOP), computes the output on the grid, and
the OW valid columns of every grid row are copied out (:func:`grid_to_output`); the (KW−1)·dx extra columns per
row are the price (2/58 of a 56-wide 3×3 layer, 2/9 at 7 wide). The same offset trick as the depthwise kernel's
padded planes, applied to the GEMM's B operand (the "implicit GEMM" of cuDNN and oneDNN's brgemm convolutions).

Strides SY × SX > 1 split each padded plane into SY·SX phases (rows ≡ qy mod SY, columns ≡ qx mod SX), each
Hq × Wq: patch row (c, ky, kx) then reads phase ((ky·dy) % SY, (kx·dx) % SX) at the fixed offset
((ky·dy) // SY)·Wq + (kx·dx) // SX, so a stride-2 k×k convolution also copies its input once (im2col wrote
KH·KW/4 copies of it with strided gathers: 3 → 16 channels, 3×3 stride 2 at 320×320 took 0.7 ms, 31 GFLOP/s).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import Layout

from ...common.cpu_epilogue import I0, chain_span
from ...common.cpu_span_copy import copy_span
from ...common.elementwise_numba import NJIT


def grid_geometry(oh: int, ow: int, kh: int, kw: int, dy: int, dx: int, icg: int, sy: int = 1,
                  sx: int = 1) -> tuple[int, int, int, np.ndarray]:
    """(Hq, Wq, grid pixels (OH−1)·Wq + OW, int64 offsets of the K = icg·KH·KW patch rows in a group's planes);
    a channel's planes are SY·SX phases of Hq × Wq, Hq = OH + (KH−1)·dy // SY, Wq = OW + (KW−1)·dx // SX."""
    hq, wq = oh + (kh - 1) * dy // sy, ow + (kw - 1) * dx // sx
    c, ky, kx = np.meshgrid(np.arange(icg), np.arange(kh), np.arange(kw), indexing="ij")
    phase = ((ky * dy) % sy) * sx + (kx * dx) % sx
    offs = (c * sy * sx * hq * wq + phase * hq * wq + ((ky * dy) // sy) * wq + (kx * dx) // sx)
    return hq, wq, (oh - 1) * wq + ow, offs.reshape(-1).astype(np.int64)


def in_place_offsets(icg: int, kh: int, kw: int, dy: int, dx: int, lay: Layout) -> np.ndarray:
    """int64 offsets of the K = icg·KH·KW patch rows (c, ky, kx) in an input read in place: c·(f pitch) + ky·dy·(y
    pitch) + kx·dx·(x pitch) of the bfyx layout ``lay`` (its padding counted in the pitches); output pixel (oy, ox)
    at stride (SY, SX) adds oy·SY·(y pitch) + ox·SX·(x pitch) to the origin of its image's halo."""
    p = lay.pitches
    c, ky, kx = np.meshgrid(np.arange(icg), np.arange(kh), np.arange(kw), indexing="ij")
    return (c * p["f"] + ky * dy * p["y"] + kx * dx * p["x"]).reshape(-1).astype(np.int64)


def plain_grid_offsets(icg: int, kh: int, kw: int, dy: int, dx: int, hp: int, wp: int) -> np.ndarray:
    """int64 offsets of the K = icg·KH·KW patch rows in one zero-bordered plane of Hp × Wp per input channel (no
    stride phases: :func:`pad_planes` with SY = SX = 1): channel c, tap (ky, kx) at c·Hp·Wp + ky·dy·Wp + kx·dx. A
    reader steps SY rows per output row and SX pixels per output pixel."""
    c, ky, kx = np.meshgrid(np.arange(icg), np.arange(kh), np.arange(kw), indexing="ij")
    return (c * hp * wp + ky * dy * wp + kx * dx).reshape(-1).astype(np.int64)


@numba.njit(parallel=True, **NJIT)
def pad_planes(x: np.ndarray, xd: np.ndarray, n0: int, cnt: int, xpad: np.ndarray, n_xpad: int, c_all: int, h: int,
               w: int, hq: int, wq: int, py: int, px: int, sy: int, sx: int) -> None:  # pragma: no cover - numba
    """Copy images n0 ≤ n < n0 + ``cnt`` of ``x`` (tensor descriptor ``xd``, cpu_conv_common.tensor_desc) into the
    zero-bordered stride phases of slot n − n0 of ``xpad`` (slots ``n_xpad`` floats apart, each C × SY·SX × Hq × Wq):
    padded element (r, cc) = input (r − py, cc − px) goes to phase (r % SY, cc % SX) at (r // SY, cc // SX); positions
    that hold no input element are zero from allocation and never written. Stride 1: one phase, the zero-bordered
    plane. One loop per (input row, column phase); one parallel region for the images (one per image cost SqueezeNet
    at batch 8 sixty-four launches a run for planes of 13×13 to 55×55)."""
    for t in prange(cnt * c_all):
        c = t % c_all
        slot = t // c_all
        s0 = xd[0] + (n0 + slot) * xd[1] + (c // 16) * xd[2] + (c % 16) * xd[3]
        for iy in range(h):
            r = iy + py
            i = r // sy
            if i >= hq:
                break
            for qx in range(sx):
                ix0 = (qx - px) % sx  # the first input column of column phase qx
                j0 = (ix0 + px) // sx
                n_c = min(-(-(w - ix0) // sx), wq - j0)
                if n_c <= 0:
                    continue
                d0 = slot * n_xpad + ((c * sy + r % sy) * sx + qx) * hq * wq + i * wq + j0
                dst = xpad[d0:d0 + n_c]
                src0 = s0 + iy * xd[4] + ix0 * xd[5]
                step = sx * xd[5]
                if step == 1:
                    copy_span(xpad, d0, x, src0, n_c)
                elif step == 2:  # a literal stride LLVM vectorizes
                    src = x[src0:src0 + 2 * n_c]
                    for j in range(n_c):
                        dst[j] = src[2 * j]
                else:
                    for j in range(n_c):
                        dst[j] = x[src0 + j * step]


@numba.njit(parallel=True, **NJIT)
def grid_to_output(grid: np.ndarray, npg: int, wp: int, out: np.ndarray, mo: np.ndarray, n: int, oc: int, oh: int,
                   ow: int, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray) -> None:  # pragma: no cover - numba
    """out[n, o, oy, 0:OW] = grid[o·npg + oy·Wp : + OW] for a bfyx output of row map ``mo`` (offset, b, f, y, x
    pitches; padding allowed, e.g. a slice of a concatenation), then the activations ``codes`` (:func:`chain_span`,
    no eltwise operand) on the copied row: one call per OW pixels instead of one per 16-pixel tile row in the GEMM
    (MobileNetV3's first layer with HardSwish: 12,544 calls of 16 elements cost as much as the convolution)."""
    no_res = np.empty(0, np.float32)
    for t in prange(oc * oh):
        o = t // oh
        oy = t % oh
        d0 = mo[0] + n * mo[1] + o * mo[2] + oy * mo[3]
        copy_span(out, d0, grid, o * npg + oy * wp, ow)
        if codes.shape[0]:
            chain_span(out, d0, ow, codes, fa, fb, no_res, I0, I0)


@numba.njit(parallel=True, **NJIT)
def output_chain(out: np.ndarray, mo: np.ndarray, n: int, oc: int, oh: int, ow: int, codes: np.ndarray,
                 fa: np.ndarray, fb: np.ndarray, span: int) -> None:  # pragma: no cover - numba
    """The activations ``codes`` (:func:`chain_span`, no eltwise operand) on every output row of image ``n`` in
    place (bfyx, row map ``mo``): what :func:`grid_to_output` applies as it copies, for a GEMM that wrote the rows
    itself (row panels, ``convolution_cpu_packed``); one call per OW pixels, not one per 16-pixel tile row, or where
    the rows are contiguous one per run of rows of at least ``span`` elements (``cpu_conv_oc.CHAIN_SPAN``)."""
    no_res = np.empty(0, np.float32)
    rows = max(1, span // ow) if span > 0 and mo[3] == ow and mo[4] == 1 else 1
    nrun = (oh + rows - 1) // rows
    for t in prange(oc * nrun):
        r0 = (t % nrun) * rows
        d0 = mo[0] + n * mo[1] + (t // nrun) * mo[2] + r0 * mo[3]
        chain_span(out, d0, min(rows, oh - r0) * ow if rows > 1 else ow, codes, fa, fb, no_res, I0, I0)
