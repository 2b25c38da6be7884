"""shuffle_channels_cpu_copy: ShuffleNet's channel shuffle on the CPU engine as plane copies (numba)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import Format
from cldnn_py.ops import ShuffleChannelsAttrs

from ...common.cpu_launch import Launcher, viewer
from ...common.cpu_layout import row_map
from ...common.elementwise_numba import NJIT
from ...cpu_kernel_base import CpuKernelBase, cpu_f32_key
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register

PLAIN = frozenset({Format.bfyx})


@numba.njit(parallel=True, **NJIT)
def shuffle_planes(out: np.ndarray, mo: np.ndarray, x: np.ndarray, mi: np.ndarray, dims: np.ndarray,
                   groups: int) -> None:  # pragma: no cover - numba
    """out[n, j·G + g] = x[n, g·(C/G) + j] plane by plane; ``dims`` = (N, C, H, W); ``mi`` / ``mo`` = (offset, b,
    f, y, x pitches) of the bfyx input and output."""
    nb, nc, h, w = dims[0], dims[1], dims[2], dims[3]
    per = nc // groups
    for t in prange(nb * nc):
        co = t % nc
        b = t // nc
        ci = (co % groups) * per + co // groups
        src0 = mi[0] + b * mi[1] + ci * mi[2]
        dst0 = mo[0] + b * mo[1] + co * mo[2]
        for y in range(h):
            s = x[src0 + y * mi[3]:src0 + y * mi[3] + w]
            d = out[dst0 + y * mo[3]:dst0 + y * mo[3] + w]
            for i in range(w):
                d[i] = s[i]


@register
class ShuffleChannelsKernelCpuCopy(CpuKernelBase):
    """Channel shuffle (Zhang et al., "ShuffleNet", 2018): x (N, C, H, W) viewed as (N, G, C/G, H, W), axes 1 and 2
    swapped, flattened back, on the CPU engine: one plane copy per output channel (the reference gathers every
    element through an index map: 14% of ShuffleNet's CPU time). Input and output f32 bfyx, padding allowed
    (interior written); rank 4, C divisible by the group count. Threads: ``prange`` over (batch, channel)."""

    name = "shuffle_channels_cpu_copy"
    primitive = "shuffle_channels"

    def supported_key(self) -> SupportedKey:
        """CPU, f32, bfyx in and out, padding allowed."""
        return cpu_f32_key(PLAIN)

    def validate(self, params: Params) -> str | None:
        """Rank 4, x pitch 1, channels divisible by the group count, no fused ops."""
        x, out = params.inputs[0], params.output
        g = int(params.attrs_as(ShuffleChannelsAttrs).group)
        if x.rank != 4 or out.shape != x.shape:
            return f"input {x} / output {out}: needs rank 4 and equal shapes"
        if g < 1 or x.shape[1] % g:
            return f"{x.shape[1]} channels are not divisible by group {g}"
        return "fused ops" if params.fused_ops else None

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output)."""
        x, out = params.inputs[0], params.output
        dims = np.array(x.dims4, np.int64)
        mi, mo = row_map(x), row_map(out)
        g = int(params.attrs_as(ShuffleChannelsAttrs).group)
        vx, vo = viewer(x), viewer(out)
        launch = Launcher(2 * out.count())

        def fn(*bufs: Any) -> None:
            launch(shuffle_planes, vo(bufs[1]), mo, vx(bufs[0]), mi, dims, g)

        return fn
