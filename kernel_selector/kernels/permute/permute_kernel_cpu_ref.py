"""permute_cpu_ref: the CPU engine's reference permute (numpy.transpose), rank 1-6."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import PermuteAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .permute_kernel_ref import PermuteKernelRef


@register
class PermuteKernelCpuRef(CpuRefKernel):
    """Reference permute on the CPU engine (twin of ``permute_ref``): output dimension i is input dimension
    ``order[i]`` (``numpy.transpose(x, order)``), logical rank 1-6. Input any format and padding; values copied
    in their own type; f32, i32, i8, u8; no fused ops."""

    twin = PermuteKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """``numpy.transpose(x, order)``."""
        return np.transpose(inputs[0], tuple(params.attrs_as(PermuteAttrs).order))
