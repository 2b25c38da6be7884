"""lrn_ref: local response normalization across channels, one work-item per output element, any data format."""

from __future__ import annotations

from cldnn_py.ops import LRNAttrs
from cldnn_py.ops.elementwise import float_literal

from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


@register
class LRNKernelRef(KernelBase):
    """Reference LRN across channels (Krizhevsky et al. 2012; clDNN ``lrn_ref``), ONNX ``LRN`` convention:

    y[c] = x[c] / (k + alpha / size * Σ x[c']²) ** beta over c' in [c - (size-1)//2, c + size//2] ∩ [0, C).

    INPUT0 (N, C[, H[, W]]) in any format; output the same shape. Each work-item sums ``size`` squares.
    """

    name = "lrn_ref"
    primitive = "lrn"

    def supported_key(self) -> SupportedKey:
        """OpenCL; f32 or f16 (storage, float arithmetic) in and out; any format, padding allowed."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """Rank >= 2 (channels are dimension 1) and a positive size."""
        if params.inputs[0].rank < 2:
            return f"input rank {params.inputs[0].rank} < 2"
        if int(params.attrs_as(LRNAttrs).size) < 1:
            return f"size {params.attrs_as(LRNAttrs).size} < 1"
        return None

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus the window (LRN_PRE, LRN_POST) and LRN_K, LRN_ALPHA_DIV_SIZE, LRN_BETA."""
        j = super().jit_constants(params)
        a = params.attrs_as(LRNAttrs)
        size = int(a.size)
        return j.update({"LRN_PRE": (size - 1) // 2, "LRN_POST": size // 2, "LRN_K": float_literal(a.k),
                         "LRN_ALPHA_DIV_SIZE": float_literal(float(a.alpha) / size),
                         "LRN_BETA": float_literal(a.beta)})
