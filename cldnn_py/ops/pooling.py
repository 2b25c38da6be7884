"""Typed attributes of pooling and its mode enum (clDNN ``pooling_params``)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .base import OpAttrs


class PoolingMode(str, enum.Enum):
    """``max``; ``average`` (divisor counts pad positions inside pad/pad_end); ``average_no_padding``."""

    max = "max"
    average = "average"
    average_no_padding = "average_no_padding"


Pair = tuple[int, int]


@dataclass(frozen=True)
class PoolingAttrs(OpAttrs):
    """Pooling of (N, C, H, W) over ``kernel`` (y, x) windows with ``stride``, ``pad``/``pad_end``, ``dilation``;
    ``ceil_mode`` (ONNX rule, :func:`cldnn_py.ops.window.pool_out_size`); ``global_pooling`` pools the whole plane."""

    mode: PoolingMode = PoolingMode.max
    kernel: Pair = (1, 1)
    stride: Pair = (1, 1)
    pad: Pair = (0, 0)
    pad_end: Pair = (0, 0)
    ceil_mode: bool = False
    global_pooling: bool = False
    dilation: Pair = (1, 1)

    def window(self, input_shape: tuple[int, ...]) -> tuple[Pair, Pair, Pair, Pair]:
        """(kernel, stride, pad, pad_end) after resolving global pooling for an input of shape (N, C, H, W)."""
        if self.global_pooling:
            return (input_shape[2], input_shape[3]), (1, 1), (0, 0), (0, 0)
        return self.kernel, self.stride, self.pad, self.pad_end
