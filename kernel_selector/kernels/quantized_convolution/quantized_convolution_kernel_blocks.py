"""quantized_convolution_blocks: 8 output channels × P pixels per work-item, exact float blocks flushed to int."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import QuantizedConvolutionAttrs

from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_5
from ...params import Params
from ...selector import register
from .quantized_convolution_kernel_ref import QuantizedConvolutionKernelBase, quantized_jit

EXACT = 2 ** 24 - 1
"""The largest magnitude a float32 partial sum of integer products may reach and stay exact."""
OCB = 8
"""Output channels per work-item (the float8 lanes)."""


def chunk_input_channels(params: Params) -> int:
    """Input channels whose products a float block may sum exactly: ⌊EXACT / (KH·KW·X·W)⌋ with X, W the largest
    |x − x_zp| and |w − w_zp| the types allow (255 with a zero point, else 255 for u8 and 128 for i8); 0 when not
    even one channel's taps fit."""
    a = params.attrs_as(QuantizedConvolutionAttrs)
    _, _, kh, kw = params.inputs[1].shape

    def bound(dtype: DataType, has_zp: bool) -> int:
        return 255 if has_zp or dtype == DataType.u8 else 128

    x = bound(params.inputs[0].dtype, a.has_input_zero_point)
    w = bound(params.inputs[1].dtype, a.has_weights_zero_point)
    return EXACT // (kh * kw * x * w)


@register
class QuantizedConvolutionKernelBlocks(QuantizedConvolutionKernelBase):
    """Integer convolution for CPU-like OpenCL devices (PoCL): a work-item holds 8 output channels × P output pixels
    of a row as float8 accumulators (local size 1, as the blocked float kernels); products of the centred integers
    are exact in float while partial sums stay below 2^24, so every :func:`chunk_input_channels` input channels the
    float sums move into int accumulators (convert_int8). Inputs and output as ``quantized_convolution_ref``; data in
    any format (read through INPUT0_GET_INDEX with the x pitch), weights plain oiyx read as scalars. Bit for bit the
    reference's output.
    """

    name = "quantized_convolution_blocks"
    tier = "cpu"  # work-groups of one work-item: CPU devices (a GPU runs the reference)

    def validate(self, params: Params) -> str | None:
        """The base's checks; groups whose output channels are not a multiple of 8 (depthwise) go to the reference,
        and so do windows too large for one exact channel."""
        why = super().validate(params) or self.tier_reason(params)
        if why:
            return why
        a = params.attrs_as(QuantizedConvolutionAttrs)
        ocg = params.inputs[1].shape[0] // a.groups
        if a.groups > 1 and ocg % OCB:
            return f"{ocg} output channels per group, not a multiple of {OCB}"
        if chunk_input_channels(params) < 1:
            return f"a {params.inputs[1].shape[2]}x{params.inputs[1].shape[3]} window overflows an exact float block"
        return None

    def priority(self, params: Params) -> int:
        """Ahead of the reference."""
        return FORCE_PRIORITY_5

    def pixels(self, params: Params) -> int:
        """P: output pixels per work-item (8, fewer for narrower outputs)."""
        return min(8, params.output.shape[3])

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, :func:`quantized_jit`, P and CHUNK_IC."""
        j = super().jit_constants(params).update(quantized_jit(params))
        return j.update({"P": self.pixels(params), "CHUNK_IC": chunk_input_channels(params)})

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """(ceil(OW / P), OH, ceil(OC / 8) · N), local size 1."""
        n, oc, oh, ow = params.output.shape
        p = self.pixels(params)
        return ((ow + p - 1) // p, oh, (oc + OCB - 1) // OCB * n), (1, 1, 1)
