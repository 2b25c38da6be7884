"""Convolution: 2-D convolution with stride, dilation, asymmetric padding and groups (clDNN ``convolution``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..layout import Layout
from ..ops.convolution import ConvolutionAttrs
from ..ops.window import conv_out_size
from .base import Primitive, WeightedMixin, normalize_window


@dataclass(frozen=True)
class Convolution(WeightedMixin, Primitive, type_name="convolution", attrs=ConvolutionAttrs):
    """y = conv(x, W) + bias, cross-correlation as in every DL framework.

    Shapes: input (N, C, H, W); weights ``Data`` (OC, C/groups, KH, KW) in oiyx; bias (OC,); output
    (N, OC, OH, OW) with OH = floor((H + pad_y + pad_end_y - dilation_y*(KH-1) - 1) / stride_y) + 1.
    ``groups == C == OC`` is depthwise. Spatial parameters are (y, x) pairs; ``pad`` pads both ends unless
    ``pad_end`` sets the bottom/right side. Raises ShapeError naming the primitive when the weights do not match.
    """

    input: str = ""
    weights: str = ""
    bias: str | None = None
    stride: Any = (1, 1)
    dilation: Any = (1, 1)
    pad: Any = (0, 0)
    pad_end: Any = None
    groups: int = 1
    block_diagonal: int = 1  # a hint from densify_grouped_convolutions (ConvolutionAttrs); users leave it at 1

    def __post_init__(self) -> None:
        super().__post_init__()
        normalize_window(self, ("stride", "dilation", "pad"))
        self._require_input_and_weights()

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """(N, OC, OH, OW) in the input's format and data type."""
        x, w = self._window_input(inputs)
        _, c, h, wd = x.shape
        g = self.groups
        bd = self.block_diagonal
        if not isinstance(bd, int) or bd < 1 or (bd > 1 and (g != 1 or c % bd or w.shape[0] % bd)):
            raise self.shape_error("block_diagonal (an int >= 1 dividing C and OC, with groups 1)",
                                   "1", f"{bd} (groups {g}, C {c}, OC {w.shape[0]})")
        if w.rank != 4:
            raise self.shape_error(f"weights '{self.weights}' shape", "(OC, C/groups, KH, KW)", w.shape)
        oc, ic, kh, kw = w.shape
        if c % g or oc % g or ic * g != c:
            raise self.shape_error(f"weights '{self.weights}' shape",
                                   f"({'OC'}, {c // g if c % g == 0 else 'C/groups'}, KH, KW) for input {x.shape} "
                                   f"and groups={g}", w.shape)
        oh = conv_out_size(h, kh, self.stride[0], self.dilation[0], self.pad[0], self.pad_end[0])
        ow = conv_out_size(wd, kw, self.stride[1], self.dilation[1], self.pad[1], self.pad_end[1])
        return self._window_output(inputs, oc, oh, ow)
