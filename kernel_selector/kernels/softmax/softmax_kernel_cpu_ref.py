"""softmax_cpu_ref: the CPU engine's reference softmax / log-softmax, on logical arrays."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import SoftmaxAttrs

from ...common.softmax import softmax_axes
from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .softmax_kernel_ref import SoftmaxKernelRef


@register
class SoftmaxKernelCpuRef(CpuRefKernel):
    """Reference softmax on the CPU engine, the semantics of ``softmax_ref``: over each row (the elements that
    differ only in the normalized axes, :func:`..softmax_kernel_ref.softmax_axes`: ``axis``, or ``axis`` .. last
    with ``coerce_2d``), m = fmax over the row (NaN ignored), y = exp(x - m) * (1 / Σ exp(x - m)), or with ``log``
    y = x - (m + log Σ exp(x - m)); float32. Input rank 1-6 (rank 5-6 unpadded bfyx, as the OpenCL reference),
    f32 in and out, any format up to rank 4; no fused ops (as the OpenCL reference).
    """

    twin = SoftmaxKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The softmax (or log-softmax) of the input, float32."""
        x = inputs[0].astype(np.float32, copy=False)
        axes = softmax_axes(params)
        with np.errstate(all="ignore"):
            m = np.fmax.reduce(x, axis=axes, keepdims=True, initial=-np.inf)
            d = x - m
            s = np.sum(np.exp(d), axis=axes, keepdims=True, dtype=np.float32)
            if params.attrs_as(SoftmaxAttrs).log:
                return x - (m + np.log(s))
            return np.exp(d) * (np.float32(1) / s)
