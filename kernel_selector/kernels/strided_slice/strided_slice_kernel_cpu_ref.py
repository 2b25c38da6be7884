"""strided_slice_cpu_ref: the CPU engine's reference strided slice (numpy / ONNX Slice semantics), rank 1-6."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import StridedSliceAttrs, slice_ranges

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .strided_slice_kernel_ref import StridedSliceKernelRef


@register
class StridedSliceKernelCpuRef(CpuRefKernel):
    """Reference strided slice on the CPU engine (twin of ``strided_slice_ref``): ``y[o] = x[start_d + o_d *
    step_d]`` with the normalized ranges of :func:`slice_ranges` (steps may be negative). Input and output any
    format and padding (rank <= 4; unpadded bfyx for rank 5-6); values copied in their own type; f32, i32, i8, u8;
    no fused ops."""

    twin = StridedSliceKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """``x`` indexed by the normalized ranges of every dimension (an outer-product index)."""
        a = params.attrs_as(StridedSliceAttrs)
        ranges = slice_ranges(a.begin, a.end, a.steps, inputs[0].shape)
        return inputs[0][np.ix_(*[np.arange(r.start, r.stop, r.step) for r in ranges])]
