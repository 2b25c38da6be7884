"""tile_cpu_ref: the CPU engine's reference tile (numpy.tile), rank 1-6."""

from __future__ import annotations

import numpy as np

from cldnn_py.layout import DataType

from ...cpu_kernel_base import CPU, CpuRefKernel
from ...params import Params, SupportedKey
from ...selector import register
from .tile_kernel_ref import TileKernelRef

_TYPES = frozenset({DataType.f32, DataType.i32, DataType.i8, DataType.u8})


@register
class TileKernelCpuRef(CpuRefKernel):
    """Reference tile on the CPU engine (twin of ``tile_ref``): ``y[o] = x[o_d mod n_d]`` per dimension
    (``numpy.tile(x, repeats)``), same rank in and out. Any format and padding (rank <= 4; unpadded bfyx for rank
    5-6); values copied in their own type; f32, i32, i8, u8; no fused ops."""

    name = "tile_cpu_ref"
    primitive = "tile"
    twin = TileKernelRef  # validate() is the OpenCL reference's: the same reasons on both engines
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU; f32, i32, i8, u8 (same in and out); any format, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=_TYPES, output_dtypes=_TYPES)

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """``numpy.tile(x, repeats)``."""
        return np.tile(inputs[0], tuple(params.attrs["repeats"]))
