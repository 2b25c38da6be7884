"""Max and average pooling of small planes as one flat grid per plane (CPU engine), a form of ``pooling_cpu_planes``.

The plane is copied into bordered row phases (−inf borders for a max, zeros for a sum) and its outputs computed as
one flat grid (:mod:`kernel_selector.common.cpu_flat_grid`) by the register micro-kernel of
:mod:`kernel_selector.common.cpu_microkernel_pool`, 64 outputs per call across every tap; an average divides each
sum by its divisor (a grid of them, computed once per layer); the valid columns of each grid row are then copied
out (:mod:`kernel_selector.common.cpu_span_copy`). It replaces the row form (``_batch_rows``: per output row, numba
loops over 7-28 columns, which run in their scalar remainder) for strides 1 and 2 along x with output rows of at
most W columns. The window's sum runs tap by tap in (ky, kx) order, not rows first as the row form sums.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ...common.cpu_flat_grid import grid_geometry, grid_offsets, grid_points, grid_to_plane, plane_to_phases
from ...common.cpu_microkernel import W
from ...common.cpu_microkernel_pool import POOL_SEGMENT, max_row_s1, max_row_s2, sum_row_s1, sum_row_s2
from ...common.elementwise_numba import NJIT


def use_pool_grid(ow: int, sx: int, mo_x: int) -> bool:
    """True when a (not global) pooling with OW output columns, stride SX along x and an output x pitch ``mo_x`` runs
    as flat grids: stride 1 or 2, unit output pitch and rows of at most W columns. Same-process A/B against the
    other forms on the 2-core Zen 4 with AVX-512 (W = 16), isolated layers at batch 8: 3×3 stride 2 max 512 × 27²
    0.83×, 480 × 28² 0.87×, average 136 × 28² (pad 1) 0.79×, 272 × 14² 0.74×; 2×2 stride 2 max 832 × 14² 0.55×,
    average 256 × 28² 0.79×, 512 × 14² 0.87×; but on 27-28 output columns the row form wins (256 × 54² 1.23×,
    192 × 56² 1.32×, average 128 × 56² 1.26× by grids)."""
    return sx in (1, 2) and mo_x == 1 and ow <= W


def pool_grid_tables(geo: np.ndarray, divs: np.ndarray, is_max: bool,
                     tasks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(scratch (tasks, floats) filled with the border value, tap offsets, (HQ, WP, G), divisor grid) of a pooling
    whose ``geo`` is (C, H, W, OH, OW, Hp, Wp, KY, KX, SY, SX, PY, PX, DY, DX) and ``divs`` (OH, OW) its divisors; the
    divisor grid holds divs[oy, ox] at grid point oy·G + ox and 1 elsewhere."""
    oh, ow = int(geo[3]), int(geo[4])
    ky, kx, sy, sx, dy, dx = (int(v) for v in geo[[7, 8, 9, 10, 13, 14]])
    hq, wp, gp, floats = grid_geometry(oh, ow, ky, kx, sy, sx, dy, dx, POOL_SEGMENT)
    scratch = np.full((tasks, floats), -np.inf if is_max else 0.0, np.float32)
    dgrid = np.ones(grid_points(oh, ow, gp, POOL_SEGMENT), np.float32)
    if not is_max:
        for oy in range(oh):
            dgrid[oy * gp:oy * gp + ow] = divs[oy, :ow]
    return scratch, grid_offsets(ky, kx, sy, dy, dx, hq, wp), np.array([hq, wp, gp], np.int64), dgrid


@numba.njit(parallel=True, **NJIT)
def pool_grid(out: np.ndarray, mo: np.ndarray, x: np.ndarray, mi: np.ndarray, n_planes: int, geo: np.ndarray,
              is_max: bool, dgrid: np.ndarray, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray, res: np.ndarray,
              mr: np.ndarray, has_res: bool, scratch: np.ndarray, toff: np.ndarray,
              grid_geo: np.ndarray) -> None:  # pragma: no cover - numba
    """``n_planes`` = B · C planes of a bfyx input and output (``mi`` / ``mo`` = (offset, b, f, y, x pitches), the
    output's x pitch 1); ``geo`` as :func:`pool_grid_tables` takes it; ``dgrid`` the divisor grid; ``mr`` the chain
    operand's operand_map; ``scratch``, ``toff``, ``grid_geo`` from :func:`pool_grid_tables` (one scratch row per
    task: the row phases, whose borders are never written, then the grid)."""
    nc, h, wd, oh, ow = geo[0], geo[1], geo[2], geo[3], geo[4]
    ky, kx, sy, sx, py, px = geo[7], geo[8], geo[9], geo[10], geo[11], geo[12]
    hq, wp, gp = grid_geo[0], grid_geo[1], grid_geo[2]
    taps = ky * kx
    n = (oh - 1) * gp + ow
    n_grid = dgrid.shape[0]
    g0 = scratch.shape[1] - n_grid  # the grid, after the phases and their slack
    rows_in = min(h, sy * hq - py)  # input rows and columns some output reads
    cols_in = min(wd, wp - px)
    plane_chain = mo[3] == ow and (not has_res or mr[3] == ow * mr[4])
    groups = scratch.shape[0]
    per = -(-n_planes // groups)
    for g in prange(groups):
        sp = scratch[g]
        grid = sp[g0:]
        for t in range(g * per, min((g + 1) * per, n_planes)):
            c = t % nc
            b = t // nc
            ibase = mi[0] + b * mi[1] + c * mi[2]
            obase = mo[0] + b * mo[1] + c * mo[2]
            plane_to_phases(sp, x, ibase, mi, rows_in, cols_in, py, px, sy, hq, wp)
            for q0 in range(0, n, POOL_SEGMENT):
                if is_max:
                    if sx == 1:
                        max_row_s1(sp, q0, toff, taps, grid, q0, dgrid, q0)
                    else:
                        max_row_s2(sp, 2 * q0, toff, taps, grid, q0, dgrid, q0)
                elif sx == 1:
                    sum_row_s1(sp, q0, toff, taps, grid, q0, dgrid, q0)
                else:
                    sum_row_s2(sp, 2 * q0, toff, taps, grid, q0, dgrid, q0)
            grid_to_plane(out, obase, mo, sp, g0, gp, oh, ow, codes, fa, fb, res, mr, has_res, plane_chain, b, c)
