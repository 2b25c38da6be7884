"""dynamic_quant_params_cpu_ref: the CPU engine's DynamicQuantizeLinear parameters (numpy on the logical array)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .dynamic_quant_params_kernel_ref import DynamicQuantParamsKernel


@register
class DynamicQuantParamsKernelCpuRef(CpuRefKernel):
    """(s, z, −z, 255 − z) of the whole input, the semantics of ``dynamic_quant_params`` (m = min(0, min x), M =
    max(0, max x), s = (M − m) / 255 in float32 (1 when M = m = 0, as onnxruntime), z = clip(rint((0 − m) / s), 0,
    255), 0 when s is NaN): numpy's
    min and max (NaN propagates) over the logical array, then four float32 operations. No fused ops."""

    twin = DynamicQuantParamsKernel  # key and validate() are the OpenCL kernel's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The (4,) float32 parameters."""
        x = inputs[0].astype(np.float32, copy=False)
        return quant_params(x.min(), x.max())


def quant_params(x_min: Any, x_max: Any) -> np.ndarray:
    """(s, z, −z, 255 − z) float32 from the min and max of a tensor (module docstring; NaN propagates to s)."""
    f = np.float32
    lo, hi = np.minimum(f(x_min), f(0)), np.maximum(f(x_max), f(0))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        s = f(1) if hi - lo == 0 else f((hi - lo) / f(255))  # onnxruntime: scale 1 for an all-zero tensor
        zf = f((f(0) - lo) / s)
    z = f(0) if not s > 0 or not np.isfinite(zf) else f(min(max(np.rint(zf), f(0)), f(255)))
    return np.array([s, z, -z, f(255) - z], np.float32)
