"""activation_cpu_ref: the CPU engine's reference activation, on logical arrays (cpu_kernel_base.CpuRefKernel)."""

from __future__ import annotations

import numpy as np

from cldnn_py.layout import DataType

from ...cpu_activations import NP_ACTIVATIONS, activation
from ...cpu_kernel_base import CPU, CpuRefKernel
from ...params import Params, SupportedKey
from ...selector import register

F32 = frozenset({DataType.f32})


@register
class ActivationKernelCpuRef(CpuRefKernel):
    """y = func(x; a, b) element-wise (:mod:`kernel_selector.cpu_activations`), f32, any format and shape; the same
    key and functions as ``activation_ref`` on OpenCL."""

    name = "activation_cpu_ref"
    primitive = "activation"

    def supported_key(self) -> SupportedKey:
        """CPU, f32 in and out, any format, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=F32, output_dtypes=F32)

    def validate(self, params: Params) -> str | None:
        """The function must be known."""
        func = params.attrs["func"].value
        return None if func in NP_ACTIVATIONS else f"unknown activation function {func}"

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """``activation(x, func, a, b)`` in float32."""
        a = params.attrs
        return activation(inputs[0].astype(np.float32), a["func"].value, a["a"], a["b"])
