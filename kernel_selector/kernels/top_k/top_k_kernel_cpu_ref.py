"""top_k_cpu_ref: the CPU engine's reference top-k along one axis, on logical arrays."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import TopKAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .top_k_kernel_ref import TopKKernelRef


@register
class TopKKernelCpuRef(CpuRefKernel):
    """Reference top-k on the CPU engine, the semantics of ``top_k_ref``: numpy's stable argsort of the input
    (negated for ``largest``; a NaN sorts after every number either way) along the axis, the first k positions,
    then their values or indices (i32). Input f32 / i32 of rank 1-6 in any format, padded or not."""

    twin = TopKKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The k values or indices along the axis, in the output's data type."""
        a = params.attrs_as(TopKAttrs)
        x = inputs[0]
        ax = int(a.axis) % x.ndim
        key = x.astype(np.float64)
        if a.largest:
            key = -key          # -NaN is NaN: still sorted after every number; ties by index (stable sort)
        order = np.take(np.argsort(key, axis=ax, kind="stable"), np.arange(int(a.k)), axis=ax)
        if a.output == "indices":
            return order.astype(np.int32)
        return np.take_along_axis(x, order, axis=ax).astype(params.output.dtype.numpy)
