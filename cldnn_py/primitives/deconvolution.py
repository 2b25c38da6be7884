"""Deconvolution: 2-D transposed convolution with stride, dilation, pads, output padding and groups
(clDNN ``deconvolution``; ONNX ConvTranspose)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..layout import Layout
from ..ops.convolution import DeconvolutionAttrs
from ..ops.window import deconv_out_size
from .base import Primitive, WeightedMixin, normalize_window


@dataclass(frozen=True)
class Deconvolution(WeightedMixin, Primitive, type_name="deconvolution", attrs=DeconvolutionAttrs):
    """y = the transpose of a convolution applied to x (the gradient of Convolution with respect to its input).

    Every input pixel x[n, c, i, j] scatters x·W[c, o, ky, kx] to the full output position
    (i·stride_y + ky·dilation_y, j·stride_x + kx·dilation_x); the output is that full result with ``pad`` rows
    and columns cut at the beginning and ``pad_end`` at the end, extended by ``output_padding`` at the end, plus
    bias[o]. Shapes: input (N, C, H, W); weights (C, OC/groups, KH, KW), the ONNX/PyTorch order (input channels
    first); bias (OC,); output (N, OC, OH, OW), OH = stride_y·(H − 1) + output_padding_y + dilation_y·(KH − 1) + 1
    − pad_y − pad_end_y. Channel c of group g = c // (C/groups) feeds outputs g·OC/groups .. (g+1)·OC/groups − 1.
    Spatial parameters are (y, x) pairs; ``pad`` pads both ends unless ``pad_end`` is given. Raises ShapeError
    naming the primitive when the weights do not match or the output would be empty.
    """

    input: str = ""
    weights: str = ""
    bias: str | None = None
    stride: Any = (1, 1)
    dilation: Any = (1, 1)
    pad: Any = (0, 0)
    pad_end: Any = None
    output_padding: Any = (0, 0)
    groups: int = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        normalize_window(self, ("stride", "dilation", "pad", "output_padding"))
        self._require_input_and_weights()

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """(N, OC, OH, OW) in the input's format and data type."""
        x, w = self._window_input(inputs)
        _, c, h, wd = x.shape
        g = self.groups
        if w.rank != 4 or w.shape[0] != c or c % g:
            raise self.shape_error(f"weights '{self.weights}' shape",
                                   f"({c}, OC/groups, KH, KW) with {c} divisible by groups={g}", w.shape)
        oc = w.shape[1] * g
        kh, kw = w.shape[2], w.shape[3]
        oh = deconv_out_size(h, kh, self.stride[0], self.dilation[0], self.pad[0], self.pad_end[0],
                             self.output_padding[0])
        ow = deconv_out_size(wd, kw, self.stride[1], self.dilation[1], self.pad[1], self.pad_end[1],
                             self.output_padding[1])
        return self._window_output(inputs, oc, oh, ow)
