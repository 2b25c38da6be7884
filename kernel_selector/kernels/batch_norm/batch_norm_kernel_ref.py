"""batch_norm_ref: inference batch normalization, one work-item per output element, any data format."""

from __future__ import annotations

from cldnn_py.ops import BatchNormAttrs
from cldnn_py.ops.elementwise import float_literal

from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import Params
from ...selector import register


@register
class BatchNormKernelRef(KernelBase):
    """Reference batch normalization, inference form (Ioffe & Szegedy 2015; clDNN ``batch_norm_gpu_ref``).

    y[b,f,y,x] = (x[b,f,y,x] - mean[f]) / sqrt(var[f] + epsilon) * scale[f] + shift[f].

    Inputs: INPUT0 data (N, C[, H[, W]]) in any format; INPUT1 mean and INPUT2 variance, then INPUT3 scale when
    ``has_scale`` and the next one shift when ``has_shift``: each holds C values in any shape (``(C,)``,
    ``(1, C, 1, 1)`` ...) and any format; the kernel maps channel c to that tensor's own (b, f, y, x)
    coordinate and reads it through its GET_INDEX macro. Missing scale/shift mean 1 and 0.
    """

    name = "batch_norm_ref"
    primitive = "batch_norm"
    supports_fused_ops = True

    def validate(self, params: Params) -> str | None:
        """The input count must match has_scale/has_shift; every statistic must hold C values."""
        a = params.attrs_as(BatchNormAttrs)
        want = 3 + int(bool(a.has_scale)) + int(bool(a.has_shift))
        if len(params.inputs) != want:
            return f"expected {want} inputs (x, mean, variance[, scale][, shift]), got {len(params.inputs)}"
        c = params.inputs[0].dims4[1]
        for i, s in enumerate(params.inputs[1:], 1):
            if s.count() != c:
                return f"input {i} holds {s.count()} values, expected {c} (one per channel)"
        return None

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus EPSILON, HAS_SCALE, HAS_SHIFT and the scale/shift input numbers."""
        j = super().jit_constants(params)
        a = params.attrs_as(BatchNormAttrs)
        has_scale, has_shift = bool(a.has_scale), bool(a.has_shift)
        j.update({"EPSILON": float_literal(a.epsilon), "HAS_SCALE": has_scale, "HAS_SHIFT": has_shift})
        if has_scale:
            j.add("SCALE_INDEX(c)", "STAT_INDEX(INPUT3, c)")
        if has_shift:
            j.add("SHIFT_INDEX(c)", f"STAT_INDEX(INPUT{3 + int(has_scale)}, c)")
        return j
