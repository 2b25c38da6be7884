"""reorder_cpu_ref: the CPU engine's reference reorder (any format and data type to any other)."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import ReorderAttrs

from ...common.convert import convert
from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .reorder_kernel_ref import ReorderKernelRef


@register
class ReorderKernelCpuRef(CpuRefKernel):
    """Reference reorder on the CPU engine: reads through the input Layout, converts (:func:`convert`), writes
    through the output Layout. f32, i32, i8, u8 in and out; any format; no fused ops."""

    twin = ReorderKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The input converted to the output's type."""
        return convert(inputs[0], params.output.dtype.numpy, params.attrs_as(ReorderAttrs).convert_mode)
