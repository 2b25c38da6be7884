"""broadcast_cpu_ref: the CPU engine's reference broadcast (numpy.broadcast_to), rank 1-6."""

from __future__ import annotations

import numpy as np

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .broadcast_kernel_ref import BroadcastKernelRef


@register
class BroadcastKernelCpuRef(CpuRefKernel):
    """Reference broadcast on the CPU engine (twin of ``broadcast_ref``): the input's dimensions align with the
    output's last ones, each equal to the output's or 1 (repeated): ``numpy.broadcast_to(x, output.shape)``. Any
    format and padding (rank <= 4; unpadded bfyx for rank 5-6); values copied in their own type; f32, i32, i8, u8;
    no fused ops."""

    twin = BroadcastKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """``numpy.broadcast_to(x, output.shape)`` (a read-only view; the base copies it into the output)."""
        return np.broadcast_to(inputs[0], params.output.shape)
