"""crop_cpu_ref: the CPU engine's reference crop (a box of the input at per-dimension offsets)."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import CropAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .crop_kernel_ref import CropKernelRef


@register
class CropKernelCpuRef(CpuRefKernel):
    """Reference crop on the CPU engine (twin of ``crop_ref``): ``y[i] = x[i + offsets]`` per logical dimension,
    the box of the output's shape. Input and output any format and padding; values copied in their own type;
    f32, i32, i8, u8; no fused ops. (A crop that is a view of its input runs no kernel.)"""

    twin = CropKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The slice ``x[o_0:o_0 + s_0, ...]``."""
        offs = tuple(params.attrs_as(CropAttrs).offsets)
        return inputs[0][tuple(slice(o, o + s) for o, s in zip(offs, params.output.shape))]
