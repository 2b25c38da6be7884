"""Max and average pooling output row by output row with the IR row kernel (CPU engine), a form of
``pooling_cpu_planes``.

Per (b, c) plane one call of :mod:`kernel_selector.common.cpu_microkernel_pool_rows`, which reads the input rows
where they lie, masks the rows and columns outside the plane and stores the output rows; then the fused activations
once per plane (a chain with an eltwise operand, or a padded output: once per row, at the operand's own pitches).
No scratch, no bordered copy. It takes windows of 2 or 3 columns at stride 1 or 2 along x (any height, stride and
dilation along y) on bfyx input and output with unit x pitch (:func:`use_row_kernel`).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ...common.cpu_epilogue import I0, chain_span, operand_index
from ...common.cpu_microkernel_pool_rows import (
    ROW_TAPS,
    pool_plane_s1_k2,
    pool_plane_s1_k3,
    pool_plane_s2_k2,
    pool_plane_s2_k3,
)
from ...common.elementwise_numba import NJIT


def use_row_kernel(win: np.ndarray, whole: bool, mi: np.ndarray, mo: np.ndarray) -> bool:
    """Whether the row kernel can run a pooling of window ``win`` (KY, KX, SY, SX, PY, PX, PY_end, PX_end, DY, DX) with
    input and output row maps ``mi`` / ``mo`` (offset, b, f, y, x pitches): not global, KX in ROW_TAPS at dilation 1
    along x, stride 1 or 2 along x, unit x pitches."""
    kx, sx, dx = int(win[1]), int(win[3]), int(win[9])
    return (not whole and kx in ROW_TAPS and dx == 1 and sx in (1, 2) and int(mi[4]) == 1
            and int(mo[4]) == 1)


@numba.njit(**NJIT)
def _plane(x: np.ndarray, xo: int, ldx: int, h: int, w: int, out: np.ndarray, o: int, ldc: int, oh: int, ow: int,
           sy: int, py: int, ky: int, dy: int, px: int, divs: np.ndarray, sx: int, kx: int,
           is_max: bool) -> None:  # pragma: no cover - numba
    """One output plane by the compiled kernel of (SX, KX), max or sum."""
    m = 1 if is_max else 0
    if sx == 2:
        if kx == 3:
            pool_plane_s2_k3(x, xo, ldx, h, w, out, o, ldc, oh, ow, sy, py, ky, dy, px, divs, m)
        else:
            pool_plane_s2_k2(x, xo, ldx, h, w, out, o, ldc, oh, ow, sy, py, ky, dy, px, divs, m)
    elif kx == 3:
        pool_plane_s1_k3(x, xo, ldx, h, w, out, o, ldc, oh, ow, sy, py, ky, dy, px, divs, m)
    else:
        pool_plane_s1_k2(x, xo, ldx, h, w, out, o, ldc, oh, ow, sy, py, ky, dy, px, divs, m)


@numba.njit(parallel=True, **NJIT)
def pool_rows(out: np.ndarray, mo: np.ndarray, x: np.ndarray, mi: np.ndarray, n_planes: int, geo: np.ndarray,
              is_max: bool, divs: np.ndarray, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray, res: np.ndarray,
              mr: np.ndarray, has_res: bool, groups: int) -> None:  # pragma: no cover - numba
    """``n_planes`` = B · C planes of a bfyx input and output (``mi`` / ``mo`` = (offset, b, f, y, x pitches), both x
    pitches 1); ``geo`` = (C, H, W, OH, OW, Hp, Wp, KY, KX, SY, SX, PY, PX, DY, DX); ``divs`` the (OH, OW) divisors
    of an average, C-contiguous (a max ignores them); the fused chain ``codes`` / ``fa`` / ``fb`` with its operand
    ``res`` of operand_map ``mr`` when ``has_res``. ``groups`` thread tasks, each a contiguous range of planes."""
    nc, h, w, oh, ow = geo[0], geo[1], geo[2], geo[3], geo[4]
    ky_n, kx_n, sy, sx, py, px, dy = geo[7], geo[8], geo[9], geo[10], geo[11], geo[12], geo[13]
    plane_chain = mo[3] == ow and not has_res  # the plane's rows contiguous: the chain once per plane
    per = -(-n_planes // groups)
    for g in prange(groups):
        for t in range(g * per, min((g + 1) * per, n_planes)):
            b = t // nc
            c = t % nc
            obase = mo[0] + b * mo[1] + c * mo[2]
            _plane(x, mi[0] + b * mi[1] + c * mi[2], mi[3], h, w, out, obase, mo[3], oh, ow, sy, py, ky_n, dy, px,
                   divs, sx, kx_n, is_max)
            if codes.shape[0] == 0:
                continue
            if plane_chain:
                chain_span(out, obase, oh * ow, codes, fa, fb, res, I0, I0)
            else:
                for oy in range(oh):
                    chain_span(out, obase + oy * mo[3], ow, codes, fa, fb, res,
                               operand_index(mr, b, c, oy, I0) if has_res else 0, mr[4] if has_res else 0)
