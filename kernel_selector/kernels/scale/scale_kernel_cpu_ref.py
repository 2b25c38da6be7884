"""scale_cpu_ref: the CPU engine's reference scale (y = x * scale + bias), on logical arrays."""

from __future__ import annotations

import numpy as np

from ...cpu_kernel_base import CpuRefKernel, align_operand
from ...params import Params
from ...selector import register
from .scale_kernel_ref import ScaleKernelRef


@register
class ScaleKernelCpuRef(CpuRefKernel):
    """Reference scale on the CPU engine, the semantics of ``scale_ref``: y = x · scale + bias in float32.

    Inputs: x of rank 1-4 in any format; scale and bias (when ``has_bias``), each of a shape that broadcasts to
    x's by numpy rules (trailing dimensions aligned), any format. Output: x's shape. f32 x in and out; no fused
    ops (as the OpenCL reference).
    """

    twin = ScaleKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """x * scale (+ bias), float32."""
        x = inputs[0].astype(np.float32, copy=False)
        ops = [align_operand(t.astype(np.float32, copy=False), x.ndim) for t in inputs[1:]]
        with np.errstate(all="ignore"):
            v = x * ops[0]
            if len(ops) > 1:
                v = v + ops[1]
        return v
