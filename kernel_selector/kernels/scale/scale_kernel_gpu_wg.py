"""scale_gpu_wg: y = x * scale (+ bias) with numpy broadcasting, explicit work-groups for GPUs (the GPU tier)."""

from __future__ import annotations

from ...common.broadcast import broadcast_get_index
from ...common.gpu_dispatch import wg_tensor_dispatch, wg_tensor_guard, wg_tensor_validate
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


@register
class ScaleKernelGpuWg(KernelBase):
    """Scale (clDNN ``scale_ref`` shape), GPU tier: y[b,f,y,x] = x[b,f,y,x] * scale[...] + bias[...], fused ops.

    INPUT0 x of rank 1-4, any format and padding; INPUT1 scale and INPUT2 bias (optional), each of a shape that
    broadcasts to x's (per channel (1, C, 1, 1), per element, scalar), any format; indices from
    :func:`..common.broadcast.broadcast_get_index`. x and the output f32 or f16 (storage), every tensor through
    its own access macros, float arithmetic. One work-item per output element: gws (X, Y, F * B) of the
    output rounded up to lws (64-256 work-items, x fastest), guarded by ``WG_OUT_OF_RANGE``. No local memory.
    The template ends with FUSED_OPS (the fusing pass does not yet fuse into scale: FUSABLE_HOSTS).
    """

    name = "scale_gpu_wg"
    primitive = "scale"
    supports_fused_ops = True
    tier = "gpu"

    def supported_key(self) -> SupportedKey:
        """OpenCL; f32 or f16 (storage, float arithmetic) in and out; any format, padding allowed."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """x of rank <= 4, scale and bias of no higher rank, a fitting work-group."""
        x = params.inputs[0]
        if x.rank > 4:
            return f"input rank {x.rank} > 4"
        for i, t in enumerate(params.inputs[1:], start=1):
            if t.rank > x.rank:
                return f"input {i} rank {t.rank} exceeds the input rank {x.rank}"
        return wg_tensor_validate(params.output, params.caps)

    def priority(self, params: Params) -> int:
        """Ahead of scale_ref in the GPU tier."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, ``WG_OUT_OF_RANGE``, ``BIAS_TERM``, ``SCALE_INDEX(b, f, y, x)`` and ``BIAS_INDEX``."""
        j = super().jit_constants(params).update(wg_tensor_guard("OUTPUT"))
        rank = params.inputs[0].rank
        has_bias = len(params.inputs) > 2
        j.add("BIAS_TERM", int(has_bias))
        j.add("SCALE_INDEX(b, f, y, x)", broadcast_get_index("INPUT1", params.inputs[1].shape, rank))
        if has_bias:
            j.add("BIAS_INDEX(b, f, y, x)", broadcast_get_index("INPUT2", params.inputs[2].shape, rank))
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (X, Y, F * B) of the output rounded up to lws (wg_dispatch)."""
        return wg_tensor_dispatch(params.output, params.caps)
