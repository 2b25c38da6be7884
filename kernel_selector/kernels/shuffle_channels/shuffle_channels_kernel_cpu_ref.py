"""shuffle_channels_cpu_ref: the CPU engine's channel shuffle (numpy reshape-transpose-reshape)."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import ShuffleChannelsAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .shuffle_channels_kernel_ref import ShuffleChannelsKernelRef


@register
class ShuffleChannelsKernelCpuRef(CpuRefKernel):
    """Channel shuffle on the CPU engine (twin of ``shuffle_channels_ref``): x (N, C, H, W) viewed as
    (N, G, C/G, H, W), axes 1 and 2 swapped, flattened back to (N, C, H, W). Any input format and padding."""

    twin = ShuffleChannelsKernelRef

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The numpy reshape-transpose-reshape."""
        x = inputs[0]
        g = params.attrs_as(ShuffleChannelsAttrs).group
        n, c, h, w = x.shape
        return np.ascontiguousarray(x.reshape(n, g, c // g, h, w).transpose(0, 2, 1, 3, 4).reshape(n, c, h, w))
