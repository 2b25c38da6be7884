"""activation_cpu_ref: the CPU engine's reference activation, on logical arrays (cpu_kernel_base.CpuRefKernel)."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import ActivationAttrs

from ...common.elementwise_np import activation
from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .activation_kernel_ref import ActivationKernelRef


@register
class ActivationKernelCpuRef(CpuRefKernel):
    """y = func(x; a, b) element-wise (the element-wise table's numpy renderer), f32, any format and shape; the same
    key and functions as ``activation_ref`` on OpenCL."""

    twin = ActivationKernelRef  # key and validate() are the OpenCL reference's: the same on both engines
    supports_fused_ops = True  # the numpy epilogue applies them

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """``activation(x, func, a, b)`` in float32."""
        a = params.attrs_as(ActivationAttrs)
        return activation(inputs[0].astype(np.float32), a.func.value, a.a, a.b)
