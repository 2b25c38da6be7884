"""Per-channel affine map on the CPU engine: ``y[b, f, y, x] = x[b, f, y, x] · mul[b·mb + f] + add[b·ab + f]``,
then a fused chain, over the physical rows of plain (bfyx, byxf, ...) or b_fs_yx_fsv16 tensors, padding allowed.

One numba kernel serves every "scale each channel" primitive of the CPU engine: inference batch normalization
(mul = scale / sqrt(var + eps), add = shift − mean · mul, computed per run from the C statistics), and an eltwise
product or sum with an operand that holds one value per (batch, channel), the squeeze-and-excitation gate of
MobileNetV3 / EfficientNet (Hu et al., "Squeeze-and-Excitation Networks", 2018). ``mb`` / ``ab`` = 0 share the
vectors across the batch. A row is (batch, feature slice, y): in bfyx a contiguous run of X values of one channel,
in fsv16 X pixels × 16 interleaved channels (the lane loop innermost, so it vectorizes with the 16 multipliers
loop-invariant). Lanes past the channel count of a blocked tail are never written. Threads: ``prange`` over rows.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from .cpu_epilogue import I0, I1, chain_span, lane_step, operand_index
from .elementwise_numba import NJIT


@numba.njit(parallel=True, **NJIT)
def channel_affine(out: np.ndarray, mo: np.ndarray, x: np.ndarray, mx: np.ndarray, dims: np.ndarray,
                   mul: np.ndarray, mb: int, add: np.ndarray, ab: int, codes: np.ndarray, fa: np.ndarray,
                   fb: np.ndarray, res: np.ndarray, mr: np.ndarray, has_res: bool) -> None:  # pragma: no cover
    """``dims`` = (B, FS, Y, X, L, F): batch, feature slices, rows, columns, lanes per slice (16 or 1), features;
    ``mo`` / ``mx`` = (offset, b, slice, y, x pitches) of the output and input (cpu_layout.row_map); ``mr`` the
    chain operand's operand_map (used when ``has_res``)."""
    nb, nfs, ny, nx, nl_all, nf = dims[0], dims[1], dims[2], dims[3], dims[4], dims[5]
    for r in prange(nb * nfs * ny):
        yy = r % ny
        t = r // ny
        fs = t % nfs
        bb = t // nfs
        nl = min(nl_all, nf - fs * nl_all)
        ro = mo[0] + bb * mo[1] + fs * mo[2] + yy * mo[3]
        rx = mx[0] + bb * mx[1] + fs * mx[2] + yy * mx[3]
        m = mul[bb * mb + fs * nl_all:bb * mb + fs * nl_all + nl]
        a = add[bb * ab + fs * nl_all:bb * ab + fs * nl_all + nl]
        if nl_all == 1:
            o = out[ro:ro + (nx - 1) * mo[4] + 1]
            v = x[rx:rx + (nx - 1) * mx[4] + 1]
            m0, a0 = m[0], a[0]
            if mo[4] == 1 and mx[4] == 1:
                for i in range(nx):
                    o[i] = v[i] * m0 + a0
            else:
                for i in range(nx):
                    o[i * mo[4]] = v[i * mx[4]] * m0 + a0
        else:
            for i in range(nx):
                o = out[ro + i * mo[4]:ro + i * mo[4] + nl]
                v = x[rx + i * mx[4]:rx + i * mx[4] + nl]
                for j in range(nl):
                    o[j] = v[j] * m[j] + a[j]
        if codes.shape[0] > 0:
            if not has_res and nl == nl_all and mo[4] == nl_all:
                chain_span(out, ro, nx * nl_all, codes, fa, fb, res, I0, I0)
            elif nl_all == 1 and mo[4] == 1:  # a plain row: the operand steps by its x pitch along it
                chain_span(out, ro, nx, codes, fa, fb, res, operand_index(mr, bb, fs, yy, I0) if has_res else 0,
                           mr[4] if has_res else 0)
            else:
                step = lane_step(mr)
                for i in range(nx):
                    r0 = operand_index(mr, bb, fs * nl_all, yy, i) if has_res else 0
                    if nl_all == 1:
                        chain_span(out, ro + i * mo[4], I1, codes, fa, fb, res, r0, step)
                    else:
                        chain_span(out, ro + i * mo[4], nl, codes, fa, fb, res, r0, step)
