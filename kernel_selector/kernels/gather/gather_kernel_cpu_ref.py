"""gather_cpu_ref: the CPU engine's reference gather (numpy.take with clamped i32 indices), rank 1-6."""

from __future__ import annotations

import numpy as np

from cldnn_py.layout import DataType

from ...cpu_kernel_base import CPU, CpuRefKernel
from ...params import Params, SupportedKey
from ...selector import register
from ..nd_index import nd_check

_TYPES = frozenset({DataType.f32, DataType.i32, DataType.i8, DataType.u8})


@register
class GatherKernelCpuRef(CpuRefKernel):
    """Reference gather on the CPU engine (twin of ``gather_ref``, numpy.take / ONNX Gather): an index ``i`` along
    ``axis`` (size n) reads ``i + n`` when negative, then clamped into [0, n) (as the OpenCL kernel, so an
    out-of-range index never reads outside the data); ``scalar_index`` drops the axis. Data and output any format
    and padding (rank <= 4; unpadded bfyx for rank 5-6), indices i32; values copied in their own type; f32, i32,
    i8, u8; no fused ops."""

    name = "gather_cpu_ref"
    primitive = "gather"
    n_data_inputs = 1
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU; data and output f32, i32, i8, u8; any format, padding allowed (indices checked in validate)."""
        return SupportedKey(engines=CPU, input_dtypes=_TYPES, output_dtypes=_TYPES)

    def validate(self, params: Params) -> str | None:
        """i32 indices; the output's shape is data[:a] + indices + data[a+1:]."""
        x, idx = params.inputs[0], params.inputs[1]
        if idx.dtype != DataType.i32:
            return f"indices must be i32, got {idx.dtype.value}"
        if not -x.rank <= int(params.attrs["axis"]) < x.rank:
            return f"axis {params.attrs['axis']} out of range for rank {x.rank}"
        ax = int(params.attrs["axis"]) % x.rank
        mid = () if params.attrs.get("scalar_index") else idx.shape
        shape = (x.shape[:ax] + mid + x.shape[ax + 1:]) or (1,)
        if shape != params.output.shape:
            return f"gather of {x.shape} by {idx.shape} on axis {ax} is {shape}, output is {params.output.shape}"
        return nd_check(params.inputs, params.output)

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """``numpy.take(data, clip(where(i < 0, i + n, i), 0, n - 1), axis)``; a scalar index drops the axis."""
        x, idx = inputs
        ax = int(params.attrs["axis"]) % x.ndim
        n = x.shape[ax]
        i = idx.astype(np.int64)
        i = np.clip(np.where(i < 0, i + n, i), 0, n - 1)
        if params.attrs.get("scalar_index"):
            i = i.reshape(())
        return np.take(x, i, axis=ax)
