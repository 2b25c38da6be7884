"""broadcast_cpu_ref: the CPU engine's reference broadcast (numpy.broadcast_to), rank 1-6."""

from __future__ import annotations

import numpy as np

from cldnn_py.layout import DataType

from ...cpu_kernel_base import CPU, CpuRefKernel
from ...params import Params, SupportedKey
from ...selector import register
from ..nd_index import nd_check

_TYPES = frozenset({DataType.f32, DataType.i32, DataType.i8, DataType.u8})


@register
class BroadcastKernelCpuRef(CpuRefKernel):
    """Reference broadcast on the CPU engine (twin of ``broadcast_ref``): the input's dimensions align with the
    output's last ones, each equal to the output's or 1 (repeated): ``numpy.broadcast_to(x, output.shape)``. Any
    format and padding (rank <= 4; unpadded bfyx for rank 5-6); values copied in their own type; f32, i32, i8, u8;
    no fused ops."""

    name = "broadcast_cpu_ref"
    primitive = "broadcast"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU; f32, i32, i8, u8 (same in and out); any format, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=_TYPES, output_dtypes=_TYPES)

    def validate(self, params: Params) -> str | None:
        """The input must broadcast to the output (numpy rule)."""
        x, out = params.inputs[0], params.output
        r, big = x.rank, out.rank
        if r > big or any(n not in (1, s) for n, s in zip(x.shape, out.shape[big - r:])):
            return f"input {x.shape} does not broadcast to {out.shape}"
        return nd_check(params.inputs, out)

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """``numpy.broadcast_to(x, output.shape)`` (a read-only view; the base copies it into the output)."""
        return np.broadcast_to(inputs[0], params.output.shape)
