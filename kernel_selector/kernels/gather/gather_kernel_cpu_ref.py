"""gather_cpu_ref: the CPU engine's reference gather (numpy.take with clamped i32 indices), rank 1-6."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import GatherAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .gather_kernel_ref import GatherKernelRef


@register
class GatherKernelCpuRef(CpuRefKernel):
    """Reference gather on the CPU engine (twin of ``gather_ref``, numpy.take / ONNX Gather): an index ``i`` along
    ``axis`` (size n) reads ``i + n`` when negative, then clamped into [0, n) (as the OpenCL kernel, so an
    out-of-range index never reads outside the data); ``scalar_index`` drops the axis. Data and output any format
    and padding (rank <= 4; unpadded bfyx for rank 5-6), indices i32; values copied in their own type; f32, i32,
    i8, u8; no fused ops."""

    twin = GatherKernelRef  # key and validate() are the OpenCL reference's: the same on both engines
    n_data_inputs = 1

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """``numpy.take(data, clip(where(i < 0, i + n, i), 0, n - 1), axis)``; a scalar index drops the axis."""
        x, idx = inputs
        ax = int(params.attrs_as(GatherAttrs).axis) % x.ndim
        n = x.shape[ax]
        i = idx.astype(np.int64)
        i = np.clip(np.where(i < 0, i + n, i), 0, n - 1)
        if params.attrs_as(GatherAttrs).scalar_index:
            i = i.reshape(())
        return np.take(x, i, axis=ax)
