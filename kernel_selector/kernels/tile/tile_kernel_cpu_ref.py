"""tile_cpu_ref: the CPU engine's reference tile (numpy.tile), rank 1-6."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import TileAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .tile_kernel_ref import TileKernelRef


@register
class TileKernelCpuRef(CpuRefKernel):
    """Reference tile on the CPU engine (twin of ``tile_ref``): ``y[o] = x[o_d mod n_d]`` per dimension
    (``numpy.tile(x, repeats)``), same rank in and out. Any format and padding (rank <= 4; unpadded bfyx for rank
    5-6); values copied in their own type; f32, i32, i8, u8; no fused ops."""

    twin = TileKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """``numpy.tile(x, repeats)``."""
        return np.tile(inputs[0], tuple(params.attrs_as(TileAttrs).repeats))
