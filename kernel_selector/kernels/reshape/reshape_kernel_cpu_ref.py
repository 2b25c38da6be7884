"""reshape_cpu_ref: the CPU engine's reference reshape (the same elements in logical row-major order)."""

from __future__ import annotations

import numpy as np

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .reshape_kernel_ref import ReshapeKernelRef


@register
class ReshapeKernelCpuRef(CpuRefKernel):
    """Reference reshape on the CPU engine (twin of ``reshape_ref``): the input, read through its Layout (any
    format, padding) as a logical array, reshaped in row-major (NCHW) order to the output's shape, any rank 1-6.
    A plain bfyx reshape is usually a view (prepare_buffer_fusing) and runs no kernel; this covers the rest.
    Values are copied in their own type; f32, i32, i8, u8; no fused ops."""

    twin = ReshapeKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """``x.reshape(output.shape)`` (C order)."""
        return inputs[0].reshape(params.output.shape)
