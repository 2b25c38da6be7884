"""scale_ref: y = x * scale (+ bias), scale and bias broadcast to x by numpy rules; one work-item per element."""

from __future__ import annotations

from ...common.broadcast import broadcast_get_index
from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


@register
class ScaleKernelRef(KernelBase):
    """Reference scale (clDNN ``scale_ref``): y[b,f,y,x] = x[b,f,y,x] · scale[...] + bias[...].

    Inputs: INPUT0 x of rank 1-4 in any format; INPUT1 scale and INPUT2 bias (when ``has_bias``), each of a shape
    that broadcasts to x's (e.g. per channel (1, C, 1, 1) or (C, 1, 1), per element, or a scalar (1,)), any
    format. Output: x's shape and format. x and the output f32 or f16 (storage); scale and bias f32 or f16 too (any
    type works: read through their own access macros, cast to float); the arithmetic is float. The broadcast index
    of scale and bias is generated in the jit (``SCALE_INDEX`` / ``BIAS_INDEX``, see
    :func:`..eltwise.eltwise_kernel_ref.broadcast_get_index`).
    """

    name = "scale_ref"
    primitive = "scale"

    def supported_key(self) -> SupportedKey:
        """OpenCL; f32 or f16 (storage, float arithmetic) in and out; any format, padding allowed."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """x of rank <= 4; scale and bias must not have a higher rank than x."""
        x = params.inputs[0]
        if x.rank > 4:
            return f"input rank {x.rank} > 4"
        for i, t in enumerate(params.inputs[1:], start=1):
            if t.rank > x.rank:
                return f"input {i} rank {t.rank} exceeds the input rank {x.rank}"
        return None

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus ``BIAS_TERM``, ``SCALE_INDEX(b, f, y, x)`` and ``BIAS_INDEX(b, f, y, x)``."""
        j = super().jit_constants(params)
        rank = params.inputs[0].rank
        has_bias = len(params.inputs) > 2
        j.add("BIAS_TERM", int(has_bias))
        j.add("SCALE_INDEX(b, f, y, x)", broadcast_get_index("INPUT1", params.inputs[1].shape, rank))
        if has_bias:
            j.add("BIAS_INDEX(b, f, y, x)", broadcast_get_index("INPUT2", params.inputs[2].shape, rank))
        return j
