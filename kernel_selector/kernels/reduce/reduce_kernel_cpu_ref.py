"""reduce_cpu_ref: the CPU engine's reference reduce (mean, sum, max, min, prod over any axes), on logical arrays."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import ReduceAttrs, ReduceMode, normalize_axes

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .reduce_kernel_ref import ReduceKernelRef


@register
class ReduceKernelCpuRef(CpuRefKernel):
    """Reference reduce on the CPU engine, the semantics of ``reduce_ref`` (ONNX ReduceMean/Sum/Max/Min): the
    input (rank 1-6, any format, padded or not) reduced over ``axes`` (empty: all). sum and mean accumulate in
    float64 (the OpenCL reference in float32) and round once to float32; max and min propagate NaN (numpy
    ``max``/``min``). The output (keep_dims or not: the same row-major order) gets the kept elements in order.
    f32 in and out; no fused ops (as the OpenCL reference).
    """

    twin = ReduceKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The reduction with the reduced axes kept as 1 (reshaped to the output's shape by the base)."""
        x = inputs[0].astype(np.float32, copy=False)
        axes = normalize_axes(tuple(params.attrs_as(ReduceAttrs).axes), x.ndim)
        mode = ReduceMode(params.attrs_as(ReduceAttrs).mode)
        if mode == ReduceMode.max:
            return np.max(x, axis=axes, keepdims=True)
        if mode == ReduceMode.min:
            return np.min(x, axis=axes, keepdims=True)
        if mode == ReduceMode.prod:
            with np.errstate(all="ignore"):
                return np.asarray(np.prod(x, axis=axes, keepdims=True, dtype=np.float64), dtype=np.float32)
        with np.errstate(all="ignore"):
            s = np.sum(x, axis=axes, keepdims=True, dtype=np.float64)
            if mode == ReduceMode.mean:
                s = s / (x.size // max(s.size, 1))
        return np.asarray(s, dtype=np.float32)
