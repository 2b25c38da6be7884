"""permute_cpu_ref: the CPU engine's reference permute (numpy.transpose), rank 1-6."""

from __future__ import annotations

import numpy as np

from cldnn_py.layout import DataType

from ...cpu_kernel_base import CPU, CpuRefKernel
from ...params import Params, SupportedKey
from ...selector import register

_TYPES = frozenset({DataType.f32, DataType.i32, DataType.i8, DataType.u8})


@register
class PermuteKernelCpuRef(CpuRefKernel):
    """Reference permute on the CPU engine (twin of ``permute_ref``): output dimension i is input dimension
    ``order[i]`` (``numpy.transpose(x, order)``), logical rank 1-6. Input any format and padding; values copied
    in their own type; f32, i32, i8, u8; no fused ops."""

    name = "permute_cpu_ref"
    primitive = "permute"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU; f32, i32, i8, u8 (same in and out); any input format, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=_TYPES, output_dtypes=_TYPES)

    def validate(self, params: Params) -> str | None:
        """The order must be a permutation of the input's logical rank."""
        order = tuple(params.attrs["order"])
        if sorted(order) != list(range(params.inputs[0].rank)):
            return f"order {order} is not a permutation of rank {params.inputs[0].rank}"
        return None

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """``numpy.transpose(x, order)``."""
        return np.transpose(inputs[0], tuple(params.attrs["order"]))
