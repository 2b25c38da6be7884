"""concatenation_cpu_ref: the CPU engine's reference concatenation, on logical arrays."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import ConcatenationAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .concatenation_kernel_ref import ConcatenationKernelRef


@register
class ConcatenationKernelCpuRef(CpuRefKernel):
    """Reference concatenation on the CPU engine, the semantics of ``concatenation_ref``: the inputs (any
    formats, padded or not) joined along the logical ``axis`` (negative counts from the end) into the output
    (any format, padded or not; only its interior is written). Pure data movement: f32, i32, i8, u8, the same type
    everywhere. Runs only when prepare_buffer_fusing did not make the concat in place. No fused ops (as the
    OpenCL reference).
    """

    twin = ConcatenationKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """``np.concatenate`` of the logical inputs along the axis, in their data type."""
        return np.concatenate(inputs, axis=int(params.attrs_as(ConcatenationAttrs).axis) % params.output.rank)
