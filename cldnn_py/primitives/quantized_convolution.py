"""QuantizedConvolution: 2-D convolution of 8-bit integers with int32 accumulation (ONNX ConvInteger and
QLinearConv; clDNN's convolution with activation and weights zero points and a requantizing output)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import TopologyError
from ..layout import DataType, Format, Layout
from ..ops.convolution import QuantizedConvolutionAttrs
from ..ops.window import conv_out_size
from .base import Primitive, normalize_window

QUANTIZED_TYPES = (DataType.u8, DataType.i8)
"""Element types of the data and the weights."""
OUTPUT_TYPES = (DataType.i32, DataType.f32, DataType.u8, DataType.i8)
"""Element types of the output: the accumulator, its scaled float value, or requantized."""
INTEGER_TYPES = (DataType.u8, DataType.i8, DataType.i32, DataType.i64)
"""Element types a zero point or the bias may have."""


@dataclass(frozen=True)
class QuantizedConvolution(Primitive, type_name="quantized_convolution", attrs=QuantizedConvolutionAttrs):
    """acc = bias + Σ (x − x_zp)·(w − w_zp[oc]) over the taps inside the input, in int32, then the output.

    Shapes and types: input (N, C, H, W) u8 or i8; weights ``Data`` (OC, C/groups, KH, KW) u8 or i8 in oiyx; bias
    (OC,) integer, added to the accumulator; ``input_zero_point`` one integer (a ``Data`` or a tensor computed at run
    time, e.g. by DynamicQuantizeLinear); ``weights_zero_point`` one integer or one per output channel (OC,);
    ``output_scale`` f32, one or one per output channel. Taps in the padding contribute nothing, which is the
    convolution of the zero-point-centred input padded with zeros (onnxruntime's ConvInteger pads with x_zp).

    Output (N, OC, OH, OW), OH as :class:`~cldnn_py.primitives.Convolution`, of type ``output_dtype``:

    - ``i32`` (ConvInteger): acc; ``output_scale`` must not be given;
    - ``f32``: float(acc)·scale[oc] (float(acc) without a scale);
    - ``u8`` / ``i8`` (QLinearConv): saturate(round_half_even(float(acc)·scale[oc]) + ``output_zero_point``), the
      requantization of onnxruntime's QLinearConv with scale = x_scale·w_scale/y_scale; ``output_scale`` required.

    int32 holds every sum of up to 33 000 products of two 8-bit values (255·255·33 000 < 2^31). Raises
    TopologyError (bad attributes, a missing scale) and ShapeError (wrong types or shapes), naming the primitive.
    """

    input: str = ""
    weights: str = ""
    bias: str | None = None
    input_zero_point: str | None = None
    weights_zero_point: str | None = None
    output_scale: str | None = None
    output_dtype: DataType = DataType.i32
    output_zero_point: int = 0
    stride: Any = (1, 1)
    dilation: Any = (1, 1)
    pad: Any = (0, 0)
    pad_end: Any = None
    groups: int = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        normalize_window(self, ("stride", "dilation", "pad"))
        if not self.input or not self.weights:
            raise TopologyError(f"quantized_convolution '{self.id}': input and weights ids are required")
        if self.output_dtype not in OUTPUT_TYPES:
            raise TopologyError(f"quantized_convolution '{self.id}': output_dtype must be one of "
                                f"{[t.value for t in OUTPUT_TYPES]}, got {self.output_dtype!r}")
        if self.output_dtype == DataType.i32 and self.output_scale is not None:
            raise TopologyError(f"quantized_convolution '{self.id}': an i32 output is the accumulator; "
                                f"output_scale '{self.output_scale}' needs an f32, u8 or i8 output")
        if self.output_dtype in QUANTIZED_TYPES and self.output_scale is None:
            raise TopologyError(f"quantized_convolution '{self.id}': a {self.output_dtype.value} output needs "
                                f"output_scale")
        lo, hi = (0, 255) if self.output_dtype == DataType.u8 else (-128, 127)
        zp = self.output_zero_point
        if not isinstance(zp, int) or (self.output_dtype in QUANTIZED_TYPES and not lo <= zp <= hi):
            raise TopologyError(f"quantized_convolution '{self.id}': output_zero_point must be an int in "
                                f"[{lo}, {hi}], got {zp!r}")

    def dependencies(self) -> list[str]:
        """[input, weights] + each of bias, input_zero_point, weights_zero_point, output_scale that is given."""
        return [self.input, self.weights] + [d for d in (self.bias, self.input_zero_point,
                                                         self.weights_zero_point, self.output_scale) if d]

    def attrs(self) -> QuantizedConvolutionAttrs:
        """The window attributes, which optional inputs are present and the output zero point."""
        return QuantizedConvolutionAttrs(
            stride=self.stride, dilation=self.dilation, pad=self.pad, pad_end=self.pad_end, groups=self.groups,
            has_bias=self.bias is not None, has_input_zero_point=self.input_zero_point is not None,
            has_weights_zero_point=self.weights_zero_point is not None,
            has_output_scale=self.output_scale is not None, output_zero_point=self.output_zero_point)

    def _check(self, what: str, layout: Layout, types: tuple[DataType, ...], counts: tuple[int, ...]) -> None:
        if layout.dtype not in types:
            raise self.shape_error(f"{what} data type", "/".join(t.value for t in types), layout.dtype.value)
        if layout.count() not in counts:
            raise self.shape_error(f"{what} element count", " or ".join(map(str, counts)),
                                   f"{layout.count()} (shape {layout.shape})")

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """(N, OC, OH, OW) bfyx of ``output_dtype``; raises ShapeError for data or weights that are not 8-bit, a
        zero point, bias or scale of the wrong type or size, or weights that do not match the input."""
        if len(inputs) != len(self.dependencies()):
            raise self.shape_error("number of inputs", len(self.dependencies()), len(inputs))
        x, w = inputs[0], inputs[1]
        if x.rank != 4 or w.rank != 4:
            raise self.shape_error("input and weights rank", "4 and 4", f"{x.rank} and {w.rank}")
        for what, t in (("input", x), ("weights", w)):
            if t.dtype not in QUANTIZED_TYPES:
                raise self.shape_error(f"{what} data type", "u8 or i8", t.dtype.value)
        _, c, h, wd = x.shape
        oc, icg, kh, kw = w.shape
        g = self.groups
        if c % g or oc % g or icg * g != c:
            raise self.shape_error(f"weights '{self.weights}' shape", f"(OC, C/groups, KH, KW) for input {x.shape} "
                                   f"and groups={g}", w.shape)
        rest = iter(inputs[2:])
        if self.bias:
            self._check(f"bias '{self.bias}'", next(rest), INTEGER_TYPES, (oc,))
        if self.input_zero_point:
            self._check(f"input_zero_point '{self.input_zero_point}'", next(rest), INTEGER_TYPES, (1,))
        if self.weights_zero_point:
            self._check(f"weights_zero_point '{self.weights_zero_point}'", next(rest), INTEGER_TYPES, (1, oc))
        if self.output_scale:
            self._check(f"output_scale '{self.output_scale}'", next(rest), (DataType.f32,), (1, oc))
        oh = conv_out_size(h, kh, self.stride[0], self.dilation[0], self.pad[0], self.pad_end[0])
        ow = conv_out_size(wd, kw, self.stride[1], self.dilation[1], self.pad[1], self.pad_end[1])
        if oh < 1 or ow < 1:
            raise self.shape_error("output size", "positive", (oh, ow))
        return Layout(self.output_dtype, Format.bfyx, (x.shape[0], oc, oh, ow))
