"""batch_norm_gpu_wg: inference batch normalization with explicit work-groups for GPUs (the GPU tier)."""

from __future__ import annotations

from cldnn_py.ops import BatchNormAttrs
from cldnn_py.ops.elementwise import float_literal

from ...common.gpu_dispatch import wg_tensor_dispatch, wg_tensor_guard, wg_tensor_validate
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, KernelBase
from ...params import Params
from ...selector import register


@register
class BatchNormKernelGpuWg(KernelBase):
    """Batch normalization, inference form (Ioffe & Szegedy 2015; clDNN ``batch_norm_gpu_ref``), GPU tier.

    y = (x - mean[f]) / sqrt(var[f] + epsilon) * scale[f] + shift[f], then the fused ops.
    INPUT0 data of rank 1-4, any format and padding; mean, variance, then scale (``has_scale``) and shift
    (``has_shift``): C values each, any shape and format (channel c is the statistic's c-th logical element).
    One work-item per output element: gws (X, Y, F * B) of the output rounded up to lws (64-256 work-items, x
    fastest; the work-items of one row share f, so the statistics' loads are uniform within a row), guarded by
    ``WG_OUT_OF_RANGE``. No local memory. Fused ops (activation, eltwise) through FUSED_OPS.
    """

    name = "batch_norm_gpu_wg"
    primitive = "batch_norm"
    supports_fused_ops = True
    tier = "gpu"

    def validate(self, params: Params) -> str | None:
        """Input count matches has_scale/has_shift, each statistic holds C values, rank <= 4, a fitting
        work-group."""
        a = params.attrs_as(BatchNormAttrs)
        want = 3 + int(bool(a.has_scale)) + int(bool(a.has_shift))
        if len(params.inputs) != want:
            return f"expected {want} inputs (x, mean, variance[, scale][, shift]), got {len(params.inputs)}"
        c = params.inputs[0].dims4[1]
        for i, s in enumerate(params.inputs[1:], 1):
            if s.count() != c:
                return f"input {i} holds {s.count()} values, expected {c} (one per channel)"
        return wg_tensor_validate(params.output, params.caps)

    def priority(self, params: Params) -> int:
        """Ahead of batch_norm_ref in the GPU tier."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, ``WG_OUT_OF_RANGE``, EPSILON, HAS_SCALE, HAS_SHIFT and the scale/shift index macros."""
        j = super().jit_constants(params).update(wg_tensor_guard("OUTPUT"))
        a = params.attrs_as(BatchNormAttrs)
        has_scale, has_shift = bool(a.has_scale), bool(a.has_shift)
        j.update({"EPSILON": float_literal(a.epsilon), "HAS_SCALE": has_scale, "HAS_SHIFT": has_shift})
        if has_scale:
            j.add("SCALE_INDEX(c)", "STAT_INDEX(INPUT3, c)")
        if has_shift:
            j.add("SHIFT_INDEX(c)", f"STAT_INDEX(INPUT{3 + int(has_scale)}, c)")
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (X, Y, F * B) of the output rounded up to lws (wg_dispatch)."""
        return wg_tensor_dispatch(params.output, params.caps)
