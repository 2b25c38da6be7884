"""Pooling: max or average over 2-D windows, global, ceil mode, asymmetric pads, dilation (clDNN ``pooling``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import TopologyError
from ..layout import Layout
from ..ops.pooling import PoolingAttrs, PoolingMode
from ..ops.window import pool_out_size
from .base import Primitive, one_input, yx_pair


@dataclass(frozen=True)
class Pooling(Primitive, type_name="pooling", attrs=PoolingAttrs):
    """Pooling of (N, C, H, W) to (N, C, OH, OW) over ``kernel`` (y, x) windows.

    ``global_pooling=True`` pools the whole plane (kernel = (H, W), output 1×1). ``average`` divides by the window
    clipped to the padded extent (ONNX count_include_pad=1); ``average_no_padding`` by the valid elements only.
    ``dilation`` (y, x) spaces the window taps (ONNX MaxPool-10 / AveragePool-19 ``dilations``): the window of
    output o covers o·stride − pad + t·dilation, t in [0, kernel); its extent (kernel − 1)·dilation + 1 replaces
    the kernel in the output-size rule.
    """

    input: str = ""
    mode: PoolingMode | str = PoolingMode.max
    kernel: Any = (1, 1)
    stride: Any = (1, 1)
    pad: Any = (0, 0)
    pad_end: Any = None
    ceil_mode: bool = False
    global_pooling: bool = False
    dilation: Any = (1, 1)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.enum_field("mode", PoolingMode)
        for name in ("kernel", "stride", "pad", "dilation"):
            object.__setattr__(self, name, yx_pair(getattr(self, name), name, self.id))
        pe = self.pad if self.pad_end is None else yx_pair(self.pad_end, "pad_end", self.id)
        object.__setattr__(self, "pad_end", pe)
        if min(self.kernel + self.stride) < 1 or min(self.pad + self.pad_end) < 0:
            raise TopologyError(f"pooling '{self.id}': kernel/stride must be >= 1 and pads >= 0")
        if min(self.dilation) < 1:
            raise TopologyError(f"pooling '{self.id}': dilation must be >= 1, got {self.dilation}")

    def window(self, input_layout: Layout) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int],
                                                    tuple[int, int]]:
        """(kernel, stride, pad, pad_end) after resolving global pooling for this input
        (:meth:`cldnn_py.ops.PoolingAttrs.window`)."""
        return self.attrs().window(input_layout.shape)  # type: ignore[attr-defined]

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """(N, C, OH, OW) in the input's format."""
        x = one_input(self, inputs)
        if x.rank != 4:
            raise self.shape_error("input rank", 4, f"{x.rank} (shape {x.shape})")
        k, s, pb, pe = self.window(x)
        d = (1, 1) if self.global_pooling else self.dilation
        k = ((k[0] - 1) * d[0] + 1, (k[1] - 1) * d[1] + 1)  # the window's extent
        if max(pb[0], pe[0]) >= k[0] or max(pb[1], pe[1]) >= k[1]:
            raise self.shape_error("pads smaller than the kernel", f"< {k}", (pb, pe))
        oh = pool_out_size(x.shape[2], k[0], s[0], pb[0], pe[0], self.ceil_mode)
        ow = pool_out_size(x.shape[3], k[1], s[1], pb[1], pe[1], self.ceil_mode)
        if oh < 1 or ow < 1:
            raise self.shape_error("output size", "positive", (oh, ow))
        return Layout(x.dtype, x.format, (x.shape[0], x.shape[1], oh, ow))
