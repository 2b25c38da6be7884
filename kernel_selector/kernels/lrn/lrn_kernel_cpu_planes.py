"""lrn_cpu_planes: local response normalization across channels on bfyx data, a numba pass per output plane."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import Format
from cldnn_py.ops import LRNAttrs

from ...common.cpu_launch import Launcher, viewer
from ...common.cpu_layout import row_map
from ...common.elementwise_numba import NJIT
from ...cpu_kernel_base import CpuKernelBase, cpu_f32_key
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register

BFYX = frozenset({Format.bfyx})


@numba.njit(parallel=True, **NJIT)
def lrn_planes(out: np.ndarray, mo: np.ndarray, x: np.ndarray, mi: np.ndarray, dims: np.ndarray, pre: int,
               post: int, k: float, ads: float, beta: float) -> None:  # pragma: no cover - numba
    """``dims`` = (N, C, R, L): batch, channels, rows per plane and their length (R = 1, L = H · W for contiguous
    planes, else R = H, L = W); ``mi`` / ``mo`` = (offset, b, f, row, x pitches), x pitch 1 (bfyx: the rows are
    contiguous slices, which LLVM vectorizes; a strided slice it did not); y[c] = x[c] · base^−beta with
    base = k + ads · Σ x[c']² over c' in [c − pre, c + post] ∩ [0, C). One task per (batch, channel, row); the
    window's squares are summed into the output row itself (no scratch), then scaled in place."""
    nb, nc, nr, nl = dims[0], dims[1], dims[2], dims[3]
    kk, aa, bb = np.float32(k), np.float32(ads), np.float32(beta)
    for t in prange(nb * nc * nr):
        r = t % nr
        c = (t // nr) % nc
        b = t // (nr * nc)
        d0 = mo[0] + b * mo[1] + c * mo[2] + r * mo[3]
        dst = out[d0:d0 + nl]  # bfyx: x pitch 1, a contiguous (vectorizable) row
        for j in range(nl):
            dst[j] = 0.0
        for cc in range(max(0, c - pre), min(nc, c + post + 1)):
            s0 = mi[0] + b * mi[1] + cc * mi[2] + r * mi[3]
            src = x[s0:s0 + nl]
            for j in range(nl):
                v = src[j]
                dst[j] += v * v
        s0 = mi[0] + b * mi[1] + c * mi[2] + r * mi[3]
        src = x[s0:s0 + nl]
        if bb == 0.75:  # AlexNet / GoogLeNet: base^-3/4 = 1 / (sqrt(base) · sqrt(sqrt(base))), vector square roots
            for j in range(nl):
                q = np.sqrt(kk + aa * dst[j])
                dst[j] = src[j] / (q * np.sqrt(q))
        else:
            for j in range(nl):
                dst[j] = src[j] * np.exp(-bb * np.log(kk + aa * dst[j]))


@register
class LRNKernelCpuPlanes(CpuKernelBase):
    """LRN across channels (Krizhevsky et al. 2012; ONNX ``LRN``, the semantics of ``lrn_ref``) on the CPU engine:
    y[c] = x[c] / (k + alpha/size · Σ x[c']²)^beta over the channel window [c − (size−1)//2, c + size//2], computed
    as ``x · exp(−beta · log(base))`` in float32 like the reference (beta = 0.75, the usual value, as
    ``x / (sqrt(base) · sqrt(sqrt(base)))``: vector square roots, within an ulp or two). Input and output
    (N, C, H, W) f32 bfyx, padding allowed. A task per (batch, channel) plane (per row when padded): the window's
    squares summed into the output (vector loops), then the power. No fused ops. GoogLeNet's two LRNs: 3.3 ms as
    row tasks with strided slices, 0.3 ms so."""

    name = "lrn_cpu_planes"
    primitive = "lrn"

    def supported_key(self) -> SupportedKey:
        """CPU, f32, bfyx in and out, padding allowed."""
        return cpu_f32_key(BFYX)

    def validate(self, params: Params) -> str | None:
        """Rank 4, equal shapes, no fused ops."""
        x, out = params.inputs[0], params.output
        if x.rank != 4 or out.shape != x.shape:
            return f"input {x} / output {out}: needs rank 4 and equal shapes"
        return "fused ops" if params.fused_ops else None

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output)."""
        a = params.attrs_as(LRNAttrs)
        size = int(a.size)
        x, out = params.inputs[0], params.output
        n, c, h, w = x.dims4
        mi, mo = row_map(x), row_map(out)
        dims = np.array([n, c, h, w], np.int64)
        if all(m[4] == 1 and m[3] == w for m in (mi, mo)):  # contiguous planes: one row of H · W per plane
            dims[2], dims[3] = 1, h * w
        vx, vo = viewer(x), viewer(out)
        pre, post = (size - 1) // 2, size // 2
        k, ads, beta = float(a.k), float(a.alpha) / size, float(a.beta)
        launch = Launcher(out.count() * (size + 2))

        def fn(*bufs: Any) -> None:
            launch(lrn_planes, vo(bufs[1]), mo, vx(bufs[0]), mi, dims, pre, post, k, ads, beta)

        return fn
