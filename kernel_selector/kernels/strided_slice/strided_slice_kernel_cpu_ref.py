"""strided_slice_cpu_ref: the CPU engine's reference strided slice (numpy / ONNX Slice semantics), rank 1-6."""

from __future__ import annotations

import numpy as np

from cldnn_py.layout import DataType
from cldnn_py.primitives.strided_slice import slice_ranges

from ...cpu_kernel_base import CPU, CpuRefKernel
from ...params import Params, SupportedKey
from ...selector import register
from .strided_slice_kernel_ref import StridedSliceKernelRef

_TYPES = frozenset({DataType.f32, DataType.i32, DataType.i8, DataType.u8})


@register
class StridedSliceKernelCpuRef(CpuRefKernel):
    """Reference strided slice on the CPU engine (twin of ``strided_slice_ref``): ``y[o] = x[start_d + o_d *
    step_d]`` with the normalized ranges of :func:`slice_ranges` (steps may be negative). Input and output any
    format and padding (rank <= 4; unpadded bfyx for rank 5-6); values copied in their own type; f32, i32, i8, u8;
    no fused ops."""

    name = "strided_slice_cpu_ref"
    primitive = "strided_slice"
    twin = StridedSliceKernelRef  # validate() is the OpenCL reference's: the same reasons on both engines
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU; f32, i32, i8, u8 (same in and out); any format, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=_TYPES, output_dtypes=_TYPES)

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """``x`` indexed by the normalized ranges of every dimension (an outer-product index)."""
        a = params.attrs
        ranges = slice_ranges(a["begin"], a["end"], a["steps"], inputs[0].shape)
        return inputs[0][np.ix_(*[np.arange(r.start, r.stop, r.step) for r in ranges])]
