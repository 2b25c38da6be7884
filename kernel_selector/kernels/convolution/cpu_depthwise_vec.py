"""Depthwise convolution rows with register accumulators (CPU engine): the plane copied once into a zero-bordered
scratch, then every output row in segments of 8-32 columns through the IR micro-kernel
(:mod:`kernel_selector.common.cpu_microkernel_dw`), all filter taps summed in registers.

Replaces, for strides 1 and 2 along x, the plane kernel's stride phases and per-tap passes over the plane
(``convolution_kernel_cpu_depthwise._plane_phases``) and, on 7×7 planes, the channels-last rows. Same-process A/B
on the 2-core Zen 4 (AVX2), isolated layers with bias and relu: against the planes 0.52-0.74× (72 × 56² stride 2
3×3 342 → 194 us, 240 × 14² 5×5 318 → 194 us), against channels-last on 7×7 planes 0.73-0.94×; inside
MobileNetV3-style and ShuffleNet (batch 1) the depthwise layers 1.4-1.6× faster (docs/cpu_engine.md).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ...common.cpu_epilogue import I0, chain_span, operand_index
from ...common.cpu_microkernel import W
from ...common.cpu_microkernel_dw import (
    dw_row_s1_1,
    dw_row_s1_2,
    dw_row_s1_4,
    dw_row_s2_1,
    dw_row_s2_2,
    dw_row_s2_4,
    segment_vectors,
)
from ...common.cpu_plane_copy import copy_plane
from ...common.elementwise_numba import NJIT


def padded_geometry(oh: int, ow: int, kh: int, kw: int, sy: int, sx: int, dy: int, dx: int) -> tuple[int, int, int]:
    """(HP, WP, floats) of the zero-bordered plane the outputs read: HP rows of WP columns, plus the slack the last
    segment's whole-vector loads may read past it."""
    hp, wp = (oh - 1) * sy + (kh - 1) * dy + 1, (ow - 1) * sx + (kw - 1) * dx + 1
    return hp, wp, hp * wp + 2 * 4 * W * sx + W


def tap_offsets(kh: int, kw: int, dy: int, dx: int, wp: int) -> np.ndarray:
    """int64 (KH·KW,): tap (ky, kx)'s offset into the padded plane, ky·DY·WP + kx·DX."""
    return np.array([ky * dy * wp + kx * dx for ky in range(kh) for kx in range(kw)], np.int64)


@numba.njit(parallel=True, **NJIT)
def depthwise_vec(out: np.ndarray, mo: np.ndarray, x: np.ndarray, mi: np.ndarray, w: np.ndarray, bias: np.ndarray,
                  has_bias: bool, geo: np.ndarray, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray,
                  res: np.ndarray, mr: np.ndarray, has_res: bool, scratch: np.ndarray,
                  toff: np.ndarray) -> None:  # pragma: no cover - numba
    """``geo`` = (N, C, H, W, OH, OW, KH, KW, SY, SX, DY, DX, PY, PX) with SX 1 or 2; ``mi`` / ``mo`` = (offset, b,
    f, y, x pitches) of the bfyx input and output (the output's x pitch 1); weights (C, 1, KH, KW) flat; ``mr`` the
    chain operand's operand_map; ``scratch`` (G, floats) zeroed once: G tasks, each a contiguous range of planes
    and its padded plane (whose border is never written); ``toff`` :func:`tap_offsets`."""
    nb, nc, h, wd, oh, ow = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5]
    kh, kw, sy, sx, dy, dx, py, px = geo[6], geo[7], geo[8], geo[9], geo[10], geo[11], geo[12], geo[13]
    hp, wp = (oh - 1) * sy + (kh - 1) * dy + 1, (ow - 1) * sx + (kw - 1) * dx + 1
    taps = kh * kw
    nv = segment_vectors(ow)
    seg = nv * W
    rows_in = min(h, hp - py)  # input rows and columns some output reads
    cols_in = min(wd, wp - px)
    plane_chain = mo[3] == ow and (not has_res or mr[3] == ow * mr[4])
    groups = scratch.shape[0]
    per = -(-(nb * nc) // groups)
    for g in prange(groups):
        sp = scratch[g]
        rb = np.empty(seg, np.float32)
        for t in range(g * per, min((g + 1) * per, nb * nc)):
            c = t % nc
            b = t // nc
            ibase = mi[0] + b * mi[1] + c * mi[2]
            obase = mo[0] + b * mo[1] + c * mo[2]
            copy_plane(sp, py * wp + px, wp, x, ibase, mi, rows_in, cols_in)
            bv = bias[c] if has_bias else np.float32(0.0)
            for oy in range(oh):
                xr = oy * sy * wp
                orow = obase + oy * mo[3]
                for ox in range(0, ow, seg):
                    n = min(seg, ow - ox)
                    # a whole segment lands in the output; a shorter one in the task's row buffer, then n floats
                    # are copied (a masked vector store is microcoded on AMD CPUs: 1.8x slower per layer)
                    dst, d0 = (out, orow + ox) if n == seg else (rb, 0)
                    if sx == 1:
                        if nv == 1:
                            dw_row_s1_1(sp, xr + ox, toff, taps, w, c * taps, dst, d0, seg, bv)
                        elif nv == 2:
                            dw_row_s1_2(sp, xr + ox, toff, taps, w, c * taps, dst, d0, seg, bv)
                        else:
                            dw_row_s1_4(sp, xr + ox, toff, taps, w, c * taps, dst, d0, seg, bv)
                    else:
                        if nv == 1:
                            dw_row_s2_1(sp, xr + 2 * ox, toff, taps, w, c * taps, dst, d0, seg, bv)
                        elif nv == 2:
                            dw_row_s2_2(sp, xr + 2 * ox, toff, taps, w, c * taps, dst, d0, seg, bv)
                        else:
                            dw_row_s2_4(sp, xr + 2 * ox, toff, taps, w, c * taps, dst, d0, seg, bv)
                    if n < seg:
                        o_seg = out[orow + ox:orow + ox + n]
                        for j in range(n):
                            o_seg[j] = rb[j]
                if codes.shape[0] > 0 and not plane_chain:
                    r0 = operand_index(mr, b, c, oy, I0) if has_res else 0
                    chain_span(out, orow, ow, codes, fa, fb, res, r0, mr[4] if has_res else 0)
            if codes.shape[0] > 0 and plane_chain:  # one call per plane
                r0 = operand_index(mr, b, c, I0, I0) if has_res else 0
                chain_span(out, obase, oh * ow, codes, fa, fb, res, r0, mr[4] if has_res else 0)
