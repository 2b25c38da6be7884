"""batch_norm_cpu_vec: inference batch normalization on the CPU engine as one per-channel affine pass (numba)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cldnn_py.ops import BatchNormAttrs

from ...common.cpu_affine_base import CpuAffineKernel
from ...cpu_kernel_base import read_logical
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params
from ...selector import register
from .batch_norm_kernel_ref import BatchNormKernelRef


@register
class BatchNormKernelCpuVec(CpuAffineKernel):
    """y = (x − mean[c]) / sqrt(var[c] + eps) · scale[c] + shift[c] (Ioffe & Szegedy 2015), then the fused chain,
    on the CPU engine.

    Inputs: data (N, C[, H[, W]]) f32 in bfyx, byxf, yxfb, fyxb or b_fs_yx_fsv16 (padding allowed); mean, variance,
    then scale when ``has_scale`` and shift when ``has_shift``, each C values in any layout. Output: the data's
    shape and format. The C multipliers and offsets are computed in float64 from the statistics on each run (they
    may be network inputs), then one pass of
    :func:`~kernel_selector.common.cpu_channel_affine.channel_affine` over the data: DenseNet-121 normalizes 62
    concatenations this way (the reference took 36% of its CPU time). Raises nothing at run time; validate()
    explains a refusal.
    """

    name = "batch_norm_cpu_vec"
    primitive = "batch_norm"

    def validate(self, params: Params) -> str | None:
        """The reference's input rules, then the affine rows' layout rules."""
        return BatchNormKernelRef().validate(params) or super().validate(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def coefficients(self, params: Params) -> Callable[[tuple[Any, ...]], tuple[np.ndarray, int, np.ndarray, int]]:
        """mul = scale / sqrt(var + eps), add = shift − mean · mul (scale 1 and shift 0 when absent)."""
        a = params.attrs_as(BatchNormAttrs)
        stats = params.inputs[1:]
        eps = float(a.epsilon)

        def coeffs(bufs: tuple[Any, ...]) -> tuple[np.ndarray, int, np.ndarray, int]:
            v = [read_logical(b, lay).astype(np.float64).ravel() for b, lay in zip(bufs[1:], stats)]
            mean, var = v[0], v[1]
            k = 2
            scale = v[k] if a.has_scale else 1.0
            k += int(bool(a.has_scale))
            shift = v[k] if a.has_shift else 0.0
            with np.errstate(all="ignore"):
                mul = scale / np.sqrt(var + eps)
                add = shift - mean * mul
            return (np.ascontiguousarray(mul, np.float32), 0, np.ascontiguousarray(add, np.float32), 0)

        return coeffs
