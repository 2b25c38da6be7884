"""permute_cpu_copy: transposes of unpadded bfyx data on the CPU engine (numba), reduced to their essential axes
(:func:`..common.permute_plan.collapse`), one output row per task; the CPU twin of ``permute_tiled``.

``permute_cpu_ref`` gathers the logical array through a per-element index map and copies it twice (an attention
block's (197, 9, 64) head split took 0.85 ms); here each output row is one strided read and one contiguous write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import DataType
from cldnn_py.ops import PermuteAttrs

from ...common.cpu_launch import Launcher, viewer
from ...common.elementwise_numba import NJIT
from ...common.permute_plan import collapse, strides
from ...cpu_kernel_base import CpuKernelBase, cpu_plain_key
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register
from .permute_kernel_tiled import PermuteKernelTiled

TYPES = frozenset({DataType.f32, DataType.i32})


@numba.njit(parallel=True, **NJIT)
def permute_rows(out: np.ndarray, x: np.ndarray, dims: np.ndarray, istr: np.ndarray, n: int,
                 step: int) -> None:  # pragma: no cover - numba
    """out[q * n + i] = x[base(q) + i * step]: output row q (its coordinates over ``dims``, row-major) starts in x
    at Σ coordinate · ``istr``; n elements per row, ``step`` apart in x."""
    rows = out.shape[0] // n
    r = dims.shape[0]
    for q in prange(rows):
        base, div = 0, 1
        for k in range(r - 1, -1, -1):
            base += ((q // div) % dims[k]) * istr[k]
            div *= dims[k]
        o = out[q * n:q * n + n]
        if step == 1:
            v = x[base:base + n]
            for i in range(n):
                o[i] = v[i]
        else:
            for i in range(n):
                o[i] = x[base + i * step]


@register
class PermuteKernelCpuCopy(CpuKernelBase):
    """Permute (numpy transpose semantics: output axis k is input axis ``order[k]``) of an unpadded bfyx f32 / i32
    tensor of rank 1-6 into an unpadded bfyx output of the same type, on the CPU engine. After :func:`collapse`, a
    task writes one contiguous output row (the output's innermost axis), reading it from the input with that axis's
    stride (1 when the innermost axis stays innermost). Threads: ``prange`` over rows."""

    name = "permute_cpu_copy"
    primitive = "permute"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU, f32 / i32, bfyx, no padding."""
        return cpu_plain_key(TYPES)

    def validate(self, params: Params) -> str | None:
        """``permute_tiled``'s: a permutation of the input's rank, one data type in and out."""
        return PermuteKernelTiled().validate(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output)."""
        shape, order = collapse(params.inputs[0].shape, tuple(params.attrs_as(PermuteAttrs).order))
        ist = strides(shape)
        oshape = [shape[a] for a in order]
        dims = np.array(oshape[:-1] or [1], np.int64)
        istr = np.array([ist[a] for a in order[:-1]] or [0], np.int64)
        n, step = oshape[-1], ist[order[-1]]
        vx, vo = viewer(params.inputs[0]), viewer(params.output)
        launch = Launcher(params.output.count())

        def fn(*bufs: Any) -> None:
            launch(permute_rows, vo(bufs[-1]), vx(bufs[0]), dims, istr, n, step)

        return fn
