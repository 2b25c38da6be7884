"""im2col for the CPU engine's GEMM convolutions: the patch matrix of one image, in parallel, through a tensor
descriptor (every plain format and b_fs_yx_fsv16, padding allowed).

``cols[g·K + (c·KH + ky)·KW + kx, oy·OW + ox] = x[n, g·C/g + c, oy·sy − py + ky·dy, ox·sx − px + kx·dx]`` (zero
outside the input), K = C/g·KH·KW, the B operand of ``out_g = W_g · cols_g`` (Chellapilla et al., "High performance
convolutional neural networks for document processing", 2006; Caffe's im2col). Per patch row and output row the
valid column range is computed once, so the interior is a straight copy (a vector copy for bfyx and stride 1) and
the border a zero fill: no bounds check per element. ``prange`` runs over the patch rows of every group.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ...common.elementwise_numba import NJIT
from .cpu_conv_common import G_C, G_DX, G_DY, G_H, G_KH, G_KW, G_OH, G_OW, G_PX, G_PY, G_SX, G_SY, G_W


@numba.njit(parallel=True, **NJIT)
def im2col(x: np.ndarray, cols: np.ndarray, geo: np.ndarray, xd: np.ndarray, n: int) -> None:  # pragma: no cover
    """Fill ``cols`` (flat float32, C·KH·KW × OH·OW for all groups in order) from image ``n`` of ``x`` described by
    ``xd`` (cpu_conv_common.tensor_desc) with the geometry ``geo`` (cpu_conv_common.geometry)."""
    c_all, h, wd = geo[G_C], geo[G_H], geo[G_W]
    oh, ow, kh, kw = geo[G_OH], geo[G_OW], geo[G_KH], geo[G_KW]
    sy, sx, dy, dx, py, px = geo[G_SY], geo[G_SX], geo[G_DY], geo[G_DX], geo[G_PY], geo[G_PX]
    npix = oh * ow
    for r in prange(c_all * kh * kw):
        c = r // (kh * kw)
        ky = (r // kw) % kh
        kx = r % kw
        src0 = xd[0] + n * xd[1] + (c // 16) * xd[2] + (c % 16) * xd[3]
        dst = cols[r * npix:(r + 1) * npix]
        # ox is valid when 0 <= ox·sx − px + kx·dx < W
        shift = kx * dx - px
        lo = 0 if shift >= 0 else min(ow, (-shift + sx - 1) // sx)
        hi = max(lo, min(ow, (wd - 1 - shift) // sx + 1)) if wd - 1 - shift >= 0 else lo
        for oy in range(oh):
            iy = oy * sy - py + ky * dy
            row = dst[oy * ow:(oy + 1) * ow]
            if iy < 0 or iy >= h:
                for ox in range(ow):
                    row[ox] = 0.0
                continue
            for ox in range(lo):
                row[ox] = 0.0
            for ox in range(hi, ow):
                row[ox] = 0.0
            s = src0 + iy * xd[4] + shift * xd[5]
            step = sx * xd[5]
            if step == 1:
                seg = x[s + lo:s + hi]
                part = row[lo:hi]
                for j in range(hi - lo):
                    part[j] = seg[j]
            elif step == 2:  # a literal stride: LLVM vectorizes it as two loads and a deinterleave (vs scalar)
                seg = x[s + 2 * lo:s + 2 * hi]
                part = row[lo:hi]
                for j in range(hi - lo):
                    part[j] = seg[2 * j]
            else:
                for ox in range(lo, hi):
                    row[ox] = x[s + ox * step]
