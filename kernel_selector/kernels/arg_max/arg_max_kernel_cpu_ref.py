"""arg_max_cpu_ref: the CPU engine's reference arg max / arg min along one axis, on logical arrays."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import ArgMaxAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .arg_max_kernel_ref import ArgMaxKernelRef


@register
class ArgMaxKernelCpuRef(CpuRefKernel):
    """Reference arg max / arg min on the CPU engine, the semantics of ``arg_max_ref`` (numpy.argmax, ONNX
    ArgMax/ArgMin): the index along ``axis`` of the largest (``mode="max"``) or smallest (``"min"``) element; ties
    give the first index, or the last with ``select_last_index``; a NaN beats every number (the first NaN, or the
    last one with ``select_last_index``). Input f32 of rank 1-6 in any format, padded or not; output i32 indices
    (the axis kept as 1 or removed: the same row-major order). No fused ops (as the OpenCL reference).
    """

    twin = ArgMaxKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The i32 indices with the axis kept as 1 (reshaped to the output's shape by the base)."""
        x = inputs[0].astype(np.float32, copy=False)
        ax = int(params.attrs_as(ArgMaxAttrs).axis) % x.ndim
        find = np.argmin if params.attrs_as(ArgMaxAttrs).mode == "min" else np.argmax
        if params.attrs_as(ArgMaxAttrs).select_last_index:
            # the first hit in the reversed axis is the last one (the last NaN when there is one)
            idx = x.shape[ax] - 1 - find(np.flip(x, axis=ax), axis=ax, keepdims=True)
        else:
            idx = find(x, axis=ax, keepdims=True)
        return idx.astype(np.int32)
