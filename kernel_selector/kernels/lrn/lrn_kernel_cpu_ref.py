"""lrn_cpu_ref: the CPU engine's reference local response normalization across channels (numpy)."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import LRNAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .lrn_kernel_ref import LRNKernelRef


@register
class LRNKernelCpuRef(CpuRefKernel):
    """Reference LRN across channels on the CPU engine (Krizhevsky et al. 2012), the semantics of ``lrn_ref``
    (ONNX ``LRN``): y[c] = x[c] · exp(−beta · log(k + alpha/size · Σ x[c']²)) over
    c' in [c − (size−1)//2, c + size//2] ∩ [0, C), i.e. x / (k + alpha/size · Σ)^beta for a positive base.

    Input (N, C, ...) f32 of rank >= 2 in any format, channels on axis 1; output the same shape, f32. Algorithm:
    the window sum adds the squares shifted by each offset of the window (at most min(size, 2C − 1) vectorized
    adds in float32; no prefix sums, so an inf in one channel does not leak into windows without it). No fused
    ops, as ``lrn_ref``.
    """

    twin = LRNKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The normalized input, float32."""
        a = params.attrs_as(LRNAttrs)
        size = int(a.size)
        pre, post = (size - 1) // 2, size // 2
        x = inputs[0].astype(np.float32, copy=False)
        c = x.shape[1]
        sq = x * x
        acc = np.zeros_like(sq)
        for off in range(max(-pre, 1 - c), min(post, c - 1) + 1):  # acc[:, f] += sq[:, f + off] where in range
            if off >= 0:
                acc[:, :c - off] += sq[:, off:]
            else:
                acc[:, -off:] += sq[:, :c + off]
        k, ads, beta = np.float32(a.k), np.float32(float(a.alpha) / size), np.float32(a.beta)
        with np.errstate(all="ignore"):
            return x * np.exp(-beta * np.log(k + ads * acc))
