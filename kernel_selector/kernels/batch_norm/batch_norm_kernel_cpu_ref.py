"""batch_norm_cpu_ref: the CPU engine's reference inference batch normalization, on logical arrays."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import BatchNormAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .batch_norm_kernel_ref import BatchNormKernelRef


def per_channel(stat: np.ndarray, rank: int) -> np.ndarray:
    """A statistic holding C values in any shape (its row-major order is the channel order) as a float32 array of
    shape (1, C, 1, ...) for a rank-``rank`` tensor."""
    return stat.astype(np.float32, copy=False).reshape((1, -1) + (1,) * (rank - 2))


@register
class BatchNormKernelCpuRef(CpuRefKernel):
    """Reference batch normalization (inference) on the CPU engine, the semantics of ``batch_norm_ref``
    (Ioffe & Szegedy 2015): y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + shift[c] in float32.

    Inputs: data (N, C, ...) in any format; mean, variance, then scale when ``has_scale`` and shift when
    ``has_shift``, each holding C values in any shape and format. f32 data in and out; fused ops supported.
    """

    twin = BatchNormKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The normalized input, float32."""
        a = params.attrs_as(BatchNormAttrs)
        x = inputs[0].astype(np.float32, copy=False)
        stats = [per_channel(s, x.ndim) for s in inputs[1:]]
        eps = np.float32(a.epsilon)
        with np.errstate(all="ignore"):
            r = (x - stats[0]) / np.sqrt(stats[1] + eps)
            k = 2
            if a.has_scale:
                r = r * stats[k]
                k += 1
            if a.has_shift:
                r = r + stats[k]
        return r
