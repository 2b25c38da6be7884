"""Depthwise convolution of whole planes as one flat grid (CPU engine): the register micro-kernel of
:mod:`~kernel_selector.common.cpu_microkernel_dw` run over a plane's outputs laid end to end, not row by row.

Why: the row form (:mod:`.cpu_depthwise_vec`) computes each output row in segments of whole vectors. On a 16-lane
host (AVX-512) a 7- or 14-wide row fills half or most of one vector and costs a call, a row buffer and a copy per row:
ShuffleNet's 544 × 7² and 272 × 14² layers ran at 18-25 GFLOP/s, a quarter of onnxruntime's channel-blocked kernel.

The grid (:mod:`kernel_selector.common.cpu_flat_grid`): the plane copied into zero-bordered row phases, its outputs
one flat grid, each tap one offset. One micro-kernel call computes NV · W grid points over all taps in registers
(3-4 calls for a 14 × 14 plane instead of 14), and the valid OW columns of each grid row are copied out. The lanes
wasted are the G − OW border points per row (7 × 7 stride 1: 49 of 64 lanes used, against 7 of 16 by rows).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ...common.cpu_flat_grid import grid_to_plane, plane_to_phases
from ...common.cpu_microkernel import W
from ...common.cpu_microkernel_dw import DW_VECTORS, dw_row_s1_4, dw_row_s2_4
from ...common.elementwise_numba import NJIT

GRID_SEGMENT = DW_VECTORS * W
"""Grid points per micro-kernel call (4 vectors)."""


@numba.njit(parallel=True, **NJIT)
def depthwise_grid(out: np.ndarray, mo: np.ndarray, x: np.ndarray, mi: np.ndarray, w: np.ndarray, bias: np.ndarray,
                   has_bias: bool, geo: np.ndarray, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray,
                   res: np.ndarray, mr: np.ndarray, has_res: bool, scratch: np.ndarray, toff: np.ndarray,
                   grid_geo: np.ndarray) -> None:  # pragma: no cover - numba
    """``geo`` = (N, C, H, W, OH, OW, KH, KW, SY, SX, DY, DX, PY, PX) with SX 1 or 2; ``mi`` / ``mo`` = (offset, b,
    f, y, x pitches) of the bfyx input and output (the output's x pitch 1); weights (C, 1, KH, KW) flat; ``mr`` the
    chain operand's operand_map; ``scratch`` (G, floats) zeroed once: one row per task, the row phases (whose
    borders are never written) then the grid; ``toff`` the tap offsets and ``grid_geo`` = (HQ, WP, G)
    (:func:`~kernel_selector.common.cpu_flat_grid.grid_offsets`, ``grid_geometry``)."""
    nb, nc, h, wd, oh, ow = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5]
    kh, kw, sy, sx, py, px = geo[6], geo[7], geo[8], geo[9], geo[12], geo[13]
    hq, wp, gp = grid_geo[0], grid_geo[1], grid_geo[2]
    taps = kh * kw
    n = (oh - 1) * gp + ow
    n_grid = -(-n // GRID_SEGMENT) * GRID_SEGMENT
    g0 = scratch.shape[1] - n_grid  # the grid, after the phases and their slack
    rows_in = min(h, sy * hq - py)  # input rows and columns some output reads
    cols_in = min(wd, wp - px)
    plane_chain = mo[3] == ow and (not has_res or mr[3] == ow * mr[4])
    groups = scratch.shape[0]
    per = -(-(nb * nc) // groups)
    for g in prange(groups):
        sp = scratch[g]
        grid = sp[g0:]
        for t in range(g * per, min((g + 1) * per, nb * nc)):
            c = t % nc
            b = t // nc
            ibase = mi[0] + b * mi[1] + c * mi[2]
            obase = mo[0] + b * mo[1] + c * mo[2]
            plane_to_phases(sp, x, ibase, mi, rows_in, cols_in, py, px, sy, hq, wp)
            bv = bias[c] if has_bias else np.float32(0.0)
            for q0 in range(0, n, GRID_SEGMENT):
                if sx == 1:
                    dw_row_s1_4(sp, q0, toff, taps, w, c * taps, grid, q0, GRID_SEGMENT, bv)
                else:
                    dw_row_s2_4(sp, 2 * q0, toff, taps, w, c * taps, grid, q0, GRID_SEGMENT, bv)
            grid_to_plane(out, obase, mo, sp, g0, gp, oh, ow, codes, fa, fb, res, mr, has_res, plane_chain, b, c)
