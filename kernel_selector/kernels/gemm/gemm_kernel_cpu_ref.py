"""gemm_cpu_ref: the CPU engine's reference batched matrix product (numpy ``matmul`` in float32)."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import GemmAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .gemm_kernel_ref import GemmKernelRef


@register
class GemmKernelCpuRef(CpuRefKernel):
    """Reference gemm on the CPU engine, the semantics of ``gemm_ref``: y[.., m, n] = alpha · Σ_k op(A)[.., m, k]
    · op(B)[.., k, n] (+ beta · C broadcast), op = transpose of the last two dimensions when asked.

    Inputs: A, B and optional C, f32, ranks 1-6 (5-6 plain unpadded bfyx, as the OpenCL kernel requires), any
    format up to rank 4. numpy ``matmul`` rules (:func:`cldnn_py.primitives.gemm.gemm_shapes`): a rank-1 A is a
    row, a rank-1 B a column, their dimension dropped; batch dimensions broadcast; transposes apply to operands of
    rank >= 2 only. Output (batch..., M, N) f32 (a scalar result is stored as shape (1,)). Algorithm: one float32
    ``np.matmul`` (BLAS sgemm per batch matrix). No fused ops, as ``gemm_ref``.
    """

    twin = GemmKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """alpha · op(A) @ op(B) (+ beta · C), float32, of the output's shape."""
        at = params.attrs_as(GemmAttrs)
        a = inputs[0].astype(np.float32, copy=False)
        b = inputs[1].astype(np.float32, copy=False)
        if at.transpose_a and a.ndim > 1:
            a = np.swapaxes(a, -1, -2)
        if at.transpose_b and b.ndim > 1:
            b = np.swapaxes(b, -1, -2)
        with np.errstate(all="ignore"):  # inf·0 in the padding or data gives NaN silently, as on OpenCL
            r = np.asarray(np.matmul(a, b), dtype=np.float32)
        alpha = np.float32(at.alpha)
        if alpha != 1:
            r = alpha * r
        if len(inputs) > 2:
            r = r + np.float32(at.beta) * inputs[2].astype(np.float32, copy=False)
        return r.reshape(params.output.shape)
