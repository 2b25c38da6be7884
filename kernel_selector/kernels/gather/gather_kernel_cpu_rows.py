"""gather_cpu_rows: Gather of contiguous rows on the CPU engine (numba), the CPU twin of ``gather_rows``: an
embedding lookup or an attention block's q / k / v split copies whole rows instead of the reference's per-element
index map."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import DataType

from ...common.cpu_launch import Launcher, viewer
from ...common.elementwise_numba import NJIT
from ...cpu_kernel_base import CpuKernelBase, cpu_plain_key
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register
from .gather_kernel_rows import GatherKernelRows, geometry

TYPES = frozenset({DataType.f32, DataType.i32})


@numba.njit(parallel=True, **NJIT)
def gather_rows(out: np.ndarray, x: np.ndarray, idx: np.ndarray, axis: int, inner: int) -> None:  # pragma: no cover
    """out[g] = x[o, indices[j]] for every output row g = o · len(idx) + j (rows of ``inner`` elements); an index is
    made non-negative (+ axis) and clamped into [0, axis) as gather_ref does."""
    nidx = idx.shape[0]
    for g in prange(out.shape[0] // inner):
        o, j = g // nidx, g % nidx
        k = idx[j]
        k = k + axis if k < 0 else k
        k = min(max(k, 0), axis - 1)
        src = x[(o * axis + k) * inner:(o * axis + k + 1) * inner]
        dst = out[g * inner:(g + 1) * inner]
        for i in range(inner):
            dst[i] = src[i]


@register
class GatherKernelCpuRows(CpuKernelBase):
    """Gather (``gather_ref``'s semantics) on the CPU engine when data and output are unpadded bfyx f32 / i32 of one
    type and the rows after the gather axis have at least ``gather_rows.MIN_INNER`` elements; i32 indices unpadded
    bfyx. Threads: ``prange`` over output rows."""

    name = "gather_cpu_rows"
    primitive = "gather"
    n_data_inputs = 1
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU; data f32 / i32, indices i32; bfyx, no padding."""
        return cpu_plain_key(TYPES)

    def validate(self, params: Params) -> str | None:
        """``gather_rows``'s: gather_ref's checks, one data type, rows of at least MIN_INNER elements."""
        return GatherKernelRows().validate(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(data, indices, output)."""
        _, axis, nidx, inner = geometry(params)
        vx, vi, vo = viewer(params.inputs[0]), viewer(params.inputs[1]), viewer(params.output)
        launch = Launcher(params.output.count())

        def fn(*bufs: Any) -> None:
            launch(gather_rows, vo(bufs[-1]), vx(bufs[0]), vi(bufs[1])[:nidx], axis, inner)

        return fn
