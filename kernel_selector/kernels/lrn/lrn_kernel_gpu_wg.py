"""lrn_gpu_wg: local response normalization across channels for GPUs, one work-item per output element in 2-D
work-groups (x fastest)."""

from __future__ import annotations

from cldnn_py.ops import LRNAttrs
from cldnn_py.ops.elementwise import float_literal

from ...common.gpu_workgroup import flat_lws, xy_dispatch
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


@register
class LRNKernelGpuWg(KernelBase):
    """LRN across channels as ``lrn_ref`` (ONNX convention, Krizhevsky et al. 2012; the launch shape of clDNN's
    ``lrn_gpu_across_channel_ref``): y[c] = x[c] / (k + alpha / size · Σ x[c']²) ** beta over
    c' in [c - (size-1)//2, c + size//2] ∩ [0, C).

    INPUT0 (N, C[, H[, W]]) f32 or f16 (storage) in any format, padded or not; output the same shape. gws =
    (W, H, C·N) with W and H rounded up to lws, lws = (lx, ly, 1) (lx the power of two covering W up to 32,
    lx·ly <= 256); a guard drops the tail; neighbouring work-items read neighbouring x of the same channels
    (coalesced on bfyx), the channel window's reuse is left to the cache. No local memory.
    """

    name = "lrn_gpu_wg"
    primitive = "lrn"
    tier = "gpu"

    def supported_key(self) -> SupportedKey:
        """OpenCL; f32 or f16 (storage, float arithmetic) in and out; any format, padding allowed."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """Rank >= 2, a positive size, work-groups of at least 32."""
        if params.inputs[0].rank < 2:
            return f"input rank {params.inputs[0].rank} < 2"
        if int(params.attrs_as(LRNAttrs).size) < 1:
            return f"size {params.attrs_as(LRNAttrs).size} < 1"
        if flat_lws(params.caps) < 32:
            return f"max work-group size {params.caps.max_work_group_size} < 32"
        return None

    def priority(self, params: Params) -> int:
        """FORCE_PRIORITY_3: ahead of lrn_ref in the gpu tier."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus the window (LRN_PRE, LRN_POST) and LRN_K, LRN_ALPHA_DIV_SIZE, LRN_BETA."""
        j = super().jit_constants(params)
        a = params.attrs_as(LRNAttrs)
        size = int(a.size)
        return j.update({"LRN_PRE": (size - 1) // 2, "LRN_POST": size // 2, "LRN_K": float_literal(a.k),
                         "LRN_ALPHA_DIV_SIZE": float_literal(float(a.alpha) / size),
                         "LRN_BETA": float_literal(a.beta)})

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """gws = (W, H rounded up to lws, C·N), lws = (lx, ly, 1)."""
        b, f, y, x = params.output.dims4
        return xy_dispatch(x, y, f * b, params.caps)
