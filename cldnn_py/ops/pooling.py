"""Typed attributes of pooling and its mode enum (clDNN ``pooling_params``), and of RoI align (ONNX RoiAlign)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .base import OpAttrs
from .window import pool_out_size


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

    def output_hw(self, h: int, w: int) -> Pair:
        """(OH, OW) of the pooled planes for input planes of ``h`` × ``w`` (the pooling primitive's rule, without its
        checks: :meth:`cldnn_py.primitives.pooling.Pooling.calc_output_layout` raises on a bad window)."""
        k, s, pb, pe = self.window((1, 1, h, w))
        d = (1, 1) if self.global_pooling else self.dilation
        ky, kx = (k[0] - 1) * d[0] + 1, (k[1] - 1) * d[1] + 1
        return (pool_out_size(h, ky, s[0], pb[0], pe[0], self.ceil_mode),
                pool_out_size(w, kx, s[1], pb[1], pe[1], self.ceil_mode))


ROI_ALIGN_MODES = ("avg", "max")
"""RoiAlign's pooling modes: ``avg`` (the mean of the bilinear samples of a bin) and ``max`` (onnxruntime's rule:
per sample the largest of its four weighted corner values, then the largest over the samples of the bin)."""

ROI_ALIGN_COORDINATE_MODES = ("half_pixel", "output_half_pixel")
"""RoiAlign's coordinate transformation modes: ``half_pixel`` shifts the scaled RoI corners by -0.5 (aligned; the
default of RoiAlign-16); ``output_half_pixel`` does not, and clamps the RoI's height and width to at least 1
(RoiAlign-10's behaviour)."""


@dataclass(frozen=True)
class RoiAlignAttrs(OpAttrs):
    """RoI align (Mask R-CNN, He et al. 2017; ONNX RoiAlign-10/16): each RoI of the (N, C, H, W) input is cut into
    ``output_height`` x ``output_width`` bins, each bin pooled (``mode``: one of :data:`ROI_ALIGN_MODES`) over a grid of
    ``sampling_ratio`` x ``sampling_ratio`` bilinear samples (0: ``ceil(roi_height / output_height)`` by
    ``ceil(roi_width / output_width)``, per RoI). RoI corners are multiplied by ``spatial_scale`` and transformed by
    ``coordinate_transformation_mode`` (one of :data:`ROI_ALIGN_COORDINATE_MODES`)."""

    output_height: int = 1
    output_width: int = 1
    sampling_ratio: int = 0
    spatial_scale: float = 1.0
    mode: str = "avg"
    coordinate_transformation_mode: str = "half_pixel"
