"""mvn_cpu_rows: mean-variance normalization over contiguous rows on the CPU engine (numba), the CPU twin of
``mvn_rows``: a transformer's LayerNorm and an InstanceNorm on bfyx without the reference's logical-array copies."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import DataType
from cldnn_py.ops import MVNAttrs

from ...common.cpu_launch import Launcher, viewer
from ...common.elementwise_numba import NJIT
from ...common.mvn_rows import NONE, operand_modes, row_length, rows_reason
from ...cpu_kernel_base import CpuKernelBase, cpu_plain_key
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register


@numba.njit(parallel=True, **NJIT)
def mvn_rows(out: np.ndarray, x: np.ndarray, scale: np.ndarray, bias: np.ndarray, geo: np.ndarray,
             eps: float) -> None:  # pragma: no cover - numba
    """Normalize rows of n elements: geo = (n, normalize_variance, scale mode, scale mod, bias mode, bias mod).
    Mean and variance in float64 (two passes), y = float32((x - mean) · inv_std) · scale + bias."""
    n, nv, sm, smod, bm, bmod = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5]
    rows = x.shape[0] // n
    for r in prange(rows):
        b = r * n
        xr = x[b:b + n]  # contiguous row views: every loop below is a vector loop (indexing x[b + i] with the
        o = out[b:b + n]  # operand modes tested inside one loop stayed scalar: 3.8x slower)
        s = 0.0
        for i in range(n):
            s += xr[i]
        mean = np.float32(s / n)
        inv = np.float32(1.0)
        if nv:
            q = 0.0
            for i in range(n):
                d = np.float64(xr[i] - mean)
                q += d * d
            inv = np.float32(1.0) / np.float32(math.sqrt(np.float32(q / n) + eps))
        for i in range(n):
            o[i] = (xr[i] - mean) * inv
        if sm == 1:
            for i in range(n):
                o[i] *= scale[i]
        elif sm == 2:
            sc = scale[r % smod]
            for i in range(n):
                o[i] *= sc
        if bm == 1:
            for i in range(n):
                o[i] += bias[i]
        elif bm == 2:
            bi = bias[r % bmod]
            for i in range(n):
                o[i] += bi


@register
class MVNKernelCpuRows(CpuKernelBase):
    """MVN on the CPU engine when the normalized axes are the trailing axes of an unpadded bfyx f32 tensor (each
    group a contiguous row), scale / bias one value per row element or per row (:mod:`..common.mvn_rows`); the
    semantics of ``mvn_cpu_ref`` (statistics in float64, two passes). Output: the normalized tensor, unpadded bfyx
    f32; the statistics results and other axes run ``mvn_cpu_ref``. Threads: ``prange`` over rows."""

    name = "mvn_cpu_rows"
    primitive = "mvn"
    n_data_inputs = None
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU, f32, bfyx, no padding."""
        return cpu_plain_key(frozenset({DataType.f32}))

    def validate(self, params: Params) -> str | None:
        """Trailing normalized axes, the normalized result, scale / bias per element or per row."""
        return rows_reason(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(x[, scale][, bias], output)."""
        a = params.attrs_as(MVNAttrs)
        (sm, smod), (bm, bmod) = [m or (NONE, 1) for m in operand_modes(params)]
        geo = np.array([row_length(params), int(bool(a.normalize_variance)), sm, smod, bm, bmod], np.int64)
        views = [viewer(t) for t in params.inputs]
        vo = viewer(params.output)
        dummy = np.zeros(1, np.float32)
        has_s, has_b = sm != NONE, bm != NONE
        eps = float(a.epsilon)
        launch = Launcher(3 * params.output.count())

        def fn(*bufs: Any) -> None:
            s = views[1](bufs[1]) if has_s else dummy
            b = views[1 + int(has_s)](bufs[1 + int(has_s)]) if has_b else dummy
            launch(mvn_rows, vo(bufs[-1]), views[0](bufs[0]), s, b, geo, eps)

        return fn

