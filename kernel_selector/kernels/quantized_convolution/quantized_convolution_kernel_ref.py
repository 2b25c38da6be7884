"""quantized_convolution_ref: one work-item per output element, int32 accumulation; any data format."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import QuantizedConvolutionAttrs

from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import Params, SupportedKey
from ...selector import register

QUANTIZED = frozenset({DataType.u8, DataType.i8})
OUTPUTS = frozenset({DataType.i32, DataType.f32, DataType.u8, DataType.i8})


def optional_inputs(a: QuantizedConvolutionAttrs) -> dict[str, int]:
    """{"BIAS" | "IZP" | "WZP" | "SCALE": index in ``params.inputs``} of the optional inputs present, in the
    primitive's dependency order (bias, input zero point, weights zero point, output scale after data, weights)."""
    present = [("BIAS", a.has_bias), ("IZP", a.has_input_zero_point), ("WZP", a.has_weights_zero_point),
               ("SCALE", a.has_output_scale)]
    out: dict[str, int] = {}
    for name, has in present:
        if has:
            out[name] = 2 + len(out)
    return out


def quantized_jit(params: Params) -> JitConstants:
    """The window constants and, per optional input NAME (BIAS, IZP, WZP, SCALE), ``HAS_NAME``, ``NAME_T`` (its
    OpenCL type) and ``NAME_PER_OC`` (one value per output channel); the output conversion
    ``QCONV_STORE(o, acc, of)`` (:func:`store_macro`). Shared by the OpenCL kernels of this primitive."""
    a = params.attrs_as(QuantizedConvolutionAttrs)
    oc, icg, kh, kw = params.inputs[1].shape
    j = JitConstants({"STRIDE_Y": a.stride[0], "STRIDE_X": a.stride[1], "DILATION_Y": a.dilation[0],
                      "DILATION_X": a.dilation[1], "PAD_Y": a.pad[0], "PAD_X": a.pad[1],
                      "FILTER_IFM_NUM": icg, "FILTER_OFM_PER_GROUP": oc // a.groups,
                      "FILTER_SIZE_Y": kh, "FILTER_SIZE_X": kw})
    for name, i in optional_inputs(a).items():
        lay = params.inputs[i]
        j.update({f"HAS_{name}": 1, f"{name}_T": lay.dtype.cl_type, f"{name}_PER_OC": int(lay.count() > 1)})
    j.add("QCONV_STORE(o, acc, of)", store_macro(params.output.dtype, a))
    return j


def store_macro(out: DataType, a: QuantizedConvolutionAttrs) -> str:
    """The body of ``QCONV_STORE(o, acc, of)``: output element ``o`` from the int accumulator ``acc`` (bias included)
    of output channel ``of``: itself (i32); float(acc)·scale (f32); saturate(rint(float(acc)·scale) + zero point)
    (u8/i8; ``rint`` rounds half to even)."""
    if out == DataType.i32:
        return "output[o] = (acc)"
    v = "((float)(acc) * scale[SCALE_PER_OC ? (of) : 0])" if a.has_output_scale else "((float)(acc))"
    if out == DataType.f32:
        return f"output[o] = {v}"
    lo, hi = (0, 255) if out == DataType.u8 else (-128, 127)
    return f"output[o] = (OUTPUT_TYPE)clamp(rint({v}) + {a.output_zero_point}.0f, {lo}.0f, {hi}.0f)"


class QuantizedConvolutionKernelBase(KernelBase):
    """What the OpenCL kernels of ``quantized_convolution`` share: the primitive, the key (u8/i8 data and weights;
    i32, f32, u8 or i8 out) and the weights check."""

    primitive = "quantized_convolution"

    def supported_key(self) -> SupportedKey:
        """OpenCL, u8/i8 in (the zero points, bias and scale are checked by the primitive), any output type of
        the primitive."""
        return SupportedKey(input_dtypes=QUANTIZED, output_dtypes=OUTPUTS)

    def validate(self, params: Params) -> str | None:
        """Weights plain (oiyx/bfyx) and unpadded."""
        w = params.inputs[1]
        if w.format.value not in ("bfyx", "oiyx") or not w.padding.is_zero:
            return f"weights format {w.format.value} (padded={not w.padding.is_zero}) is not plain oiyx"
        return None


@register
class QuantizedConvolutionKernelRef(QuantizedConvolutionKernelBase):
    """Reference integer convolution (the semantics of :class:`~cldnn_py.primitives.QuantizedConvolution`).

    Inputs: INPUT0 data (N, C, H, W) u8/i8 in any format, INPUT1 weights (OC, C/groups, KH, KW) u8/i8 oiyx, then
    the optional bias (OC,), input zero point (1,), weights zero point (1 or OC) and output scale (1 or OC, f32).
    One work-item per output element sums C/groups·KH·KW products of the centred values in an int; the output
    conversion is the primitive's (i32, scaled f32, or requantized with round-half-even ``rint`` and saturation).
    """

    name = "quantized_convolution_ref"

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus :func:`quantized_jit`."""
        return super().jit_constants(params).update(quantized_jit(params))
