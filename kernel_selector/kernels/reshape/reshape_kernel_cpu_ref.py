"""reshape_cpu_ref: the CPU engine's reference reshape (the same elements in logical row-major order)."""

from __future__ import annotations

import numpy as np

from cldnn_py.layout import DataType

from ...cpu_kernel_base import CPU, CpuRefKernel
from ...params import Params, SupportedKey
from ...selector import register

_TYPES = frozenset({DataType.f32, DataType.i32, DataType.i8, DataType.u8})


@register
class ReshapeKernelCpuRef(CpuRefKernel):
    """Reference reshape on the CPU engine (twin of ``reshape_ref``): the input, read through its Layout (any
    format, padding) as a logical array, reshaped in row-major (NCHW) order to the output's shape, any rank 1-6.
    A plain bfyx reshape is usually a view (prepare_buffer_fusing) and runs no kernel; this covers the rest.
    Values are copied in their own type; f32, i32, i8, u8; no fused ops."""

    name = "reshape_cpu_ref"
    primitive = "reshape"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU; f32, i32, i8, u8 (same in and out); any input format, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=_TYPES, output_dtypes=_TYPES)

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """``x.reshape(output.shape)`` (C order)."""
        return inputs[0].reshape(params.output.shape)
