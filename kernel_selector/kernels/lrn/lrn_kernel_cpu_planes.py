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
    """``dims`` = (N, C, H, W); ``mi`` / ``mo`` = (offset, b, f, y, x pitches); y[c] = x[c] · exp(−beta ·
    log(k + ads · Σ x[c']²)) over c' in [c − pre, c + post] ∩ [0, C), one task per (batch, channel, row)."""
    nb, nc, h, w = dims[0], dims[1], dims[2], dims[3]
    kk, aa, bb = np.float32(k), np.float32(ads), np.float32(beta)
    for t in prange(nb * nc * h):
        y = t % h
        c = (t // h) % nc
        b = t // (h * nc)
        acc = np.zeros(w, np.float32)
        for cc in range(max(0, c - pre), min(nc, c + post + 1)):
            s0 = mi[0] + b * mi[1] + cc * mi[2] + y * mi[3]
            src = x[s0:s0 + (w - 1) * mi[4] + 1]
            for j in range(w):
                v = src[j * mi[4]]
                acc[j] += v * v
        s0 = mi[0] + b * mi[1] + c * mi[2] + y * mi[3]
        src = x[s0:s0 + (w - 1) * mi[4] + 1]
        d0 = mo[0] + b * mo[1] + c * mo[2] + y * mo[3]
        dst = out[d0:d0 + (w - 1) * mo[4] + 1]
        for j in range(w):
            dst[j * mo[4]] = src[j * mi[4]] * np.exp(-bb * np.log(kk + aa * acc[j]))


@register
class LRNKernelCpuPlanes(CpuKernelBase):
    """LRN across channels (Krizhevsky et al. 2012; ONNX ``LRN``, the semantics of ``lrn_ref``) on the CPU engine:
    y[c] = x[c] / (k + alpha/size · Σ x[c']²)^beta over the channel window [c − (size−1)//2, c + size//2], computed
    as ``x · exp(−beta · log(base))`` in float32 like the reference. Input and output (N, C, H, W) f32 bfyx, padding
    allowed. A task per (batch, channel, row): the window's squares summed along the row (a vector loop), then the
    power. No fused ops (GoogLeNet's two LRNs took 9% of its CPU time in the reference)."""

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
        dims = np.array(x.dims4, np.int64)
        mi, mo = row_map(x), row_map(out)
        vx, vo = viewer(x), viewer(out)
        pre, post = (size - 1) // 2, size // 2
        k, ads, beta = float(a.k), float(a.alpha) / size, float(a.beta)
        launch = Launcher(out.count() * (size + 2))

        def fn(*bufs: Any) -> None:
            launch(lrn_planes, vo(bufs[1]), mo, vx(bufs[0]), mi, dims, pre, post, k, ads, beta)

        return fn
