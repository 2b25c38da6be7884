"""fully_connected_cpu_ref: the CPU engine's reference inner product (one float32 matmul)."""

from __future__ import annotations

import numpy as np

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .fully_connected_kernel_ref import FullyConnectedKernelRef


@register
class FullyConnectedKernelCpuRef(CpuRefKernel):
    """Reference inner product on the CPU engine, the semantics of ``fully_connected_ref``:
    y[n, m] = Σ_k x[n, k] · W[m, k] + bias[m].

    Inputs: data (N, ...) f32 of any rank and format, flattened to (N, K) in logical order (k = (f·Y + y)·X + x);
    weights (M, K) in any format (os_iyx_osv16 included: they are read logically); bias of any shape with M
    elements when present. Output (N, M) f32. Algorithm: ``x @ W.T`` in float32 (BLAS sgemm). Fused ops are
    applied by the base.
    """

    twin = FullyConnectedKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """(N, M) float32."""
        x = inputs[0].astype(np.float32, copy=False)
        w = inputs[1].astype(np.float32, copy=False)
        with np.errstate(all="ignore"):  # inf·0 in the padding or data gives NaN silently, as on OpenCL
            out = x.reshape(x.shape[0], -1) @ w.T
        if len(inputs) > 2:
            out += inputs[2].astype(np.float32).reshape(1, -1)
        return out
