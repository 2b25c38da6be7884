"""ShuffleChannels: the channel shuffle of ShuffleNet (clDNN ``shuffle_channels``, ONNX's Reshape-Transpose-Reshape
pattern, which the ``fold_channel_shuffle`` pass turns into this primitive)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import TopologyError
from ..layout import Layout
from ..ops.shape import ShuffleChannelsAttrs
from .base import Primitive, one_input


@dataclass(frozen=True)
class ShuffleChannels(Primitive, type_name="shuffle_channels", attrs=ShuffleChannelsAttrs):
    """Channel shuffle of a rank-4 (N, C, H, W) input with ``group`` groups (Zhang et al., "ShuffleNet", 2017):
    output channel c is input channel (c % group) * (C / group) + c // group. Output: the input's shape, format and
    data type. Raises TopologyError for group < 1 and ShapeError when the input is not rank 4 or C is not a multiple
    of group."""

    input: str = ""
    group: int = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.group, int) or self.group < 1:
            raise TopologyError(f"shuffle_channels '{self.id}': group must be an int >= 1, got {self.group!r}")

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """The input's layout without its padding."""
        x = one_input(self, inputs)
        if x.rank != 4:
            raise self.shape_error("input rank", 4, x.rank)
        if x.shape[1] % self.group:
            raise self.shape_error(f"channels (a multiple of group {self.group})", f"k * {self.group}", x.shape[1])
        return Layout(x.dtype, x.format, x.shape)
