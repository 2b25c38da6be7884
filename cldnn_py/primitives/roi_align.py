"""RoiAlign: bilinear RoI pooling of feature maps (Mask R-CNN, He et al. 2017; clDNN ``roi_align``, ONNX RoiAlign)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import DTypeError, TopologyError
from ..layout import DataType, Format, Layout
from ..ops.pooling import ROI_ALIGN_COORDINATE_MODES, ROI_ALIGN_MODES, RoiAlignAttrs
from .base import Primitive

_FLOATS = (DataType.f32, DataType.f16)


@dataclass(frozen=True)
class RoiAlign(Primitive, type_name="roi_align", attrs=RoiAlignAttrs):
    """``y[r, c, ph, pw]`` = the pooled bilinear samples of bin (ph, pw) of RoI ``r`` in channel ``c`` of image
    ``batch_indices[r]`` (ONNX RoiAlign-10/16/22 semantics, as onnxruntime computes them).

    Inputs: ``input`` (N, C, H, W) f32 or f16, any format; ``rois`` (num_rois, 4) f32 or f16, each row
    ``[x1, y1, x2, y2]`` in the input image's coordinates (multiplied by ``spatial_scale`` to reach the feature map);
    ``batch_indices`` (num_rois,) i32 (ONNX's int64 is converted at import). Output (num_rois, C, output_height,
    output_width), bfyx, the input's data type.

    Per RoI: the scaled corners are shifted by -0.5 (``coordinate_transformation_mode="half_pixel"``, the default)
    or not (``"output_half_pixel"``, RoiAlign-10's behaviour, which also clamps the RoI's height and width to at least
    1). Each of the ``output_height`` x ``output_width`` bins takes a grid of ``sampling_ratio`` x ``sampling_ratio``
    samples at the centres of its sub-cells (``sampling_ratio=0``: ``ceil(roi_height / output_height)`` by
    ``ceil(roi_width / output_width)``). A sample outside [-1, H] x [-1, W] is 0; otherwise its coordinates are
    clamped to at least 0 and it interpolates the four neighbouring pixels (the last row / column repeats at the
    border). ``mode="avg"`` averages a bin's samples (dividing by the grid's size, at least 1); ``mode="max"``
    takes, per sample, the largest of its four weighted corner values, then the largest over the bin's samples
    (onnxruntime's definition, which ONNX's conformance case ``test_roialign_mode_max`` encodes). A bin without
    samples (an empty adaptive grid: an RoI of size <= 0, or of non-finite size) is 0.

    A batch index outside [0, N) is not checked on the device: the kernels write zeros for that RoI (they never read
    outside the input). Raises TopologyError for a bad attribute (naming the primitive), ShapeError for bad input
    shapes and DTypeError for bad input data types (both naming the primitive, the expected and the actual value).
    """

    input: str = ""
    rois: str = ""
    batch_indices: str = ""
    output_height: int = 1
    output_width: int = 1
    sampling_ratio: int = 0
    spatial_scale: float = 1.0
    mode: str = "avg"
    coordinate_transformation_mode: str = "half_pixel"

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("input", "rois", "batch_indices"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise TopologyError(f"roi_align '{self.id}': {name} must be a primitive id, got "
                                    f"{getattr(self, name)!r}")
        try:
            sizes = (int(self.output_height), int(self.output_width), int(self.sampling_ratio))
            scale = float(self.spatial_scale)
        except (TypeError, ValueError):
            raise TopologyError(f"roi_align '{self.id}': output_height, output_width and sampling_ratio must be ints "
                                f"and spatial_scale a float, got {self.output_height!r}, {self.output_width!r}, "
                                f"{self.sampling_ratio!r}, {self.spatial_scale!r}") from None
        if min(sizes[:2]) < 1:
            raise TopologyError(f"roi_align '{self.id}': output_height and output_width must be >= 1, got "
                                f"{sizes[0]}, {sizes[1]}")
        if sizes[2] < 0:
            raise TopologyError(f"roi_align '{self.id}': sampling_ratio must be >= 0 (0: adaptive), got {sizes[2]}")
        if not (math.isfinite(scale) and scale > 0):
            raise TopologyError(f"roi_align '{self.id}': spatial_scale must be a finite positive float, got {scale}")
        if self.mode not in ROI_ALIGN_MODES:
            raise TopologyError(f"roi_align '{self.id}': mode must be one of {ROI_ALIGN_MODES}, got {self.mode!r}")
        if self.coordinate_transformation_mode not in ROI_ALIGN_COORDINATE_MODES:
            raise TopologyError(f"roi_align '{self.id}': coordinate_transformation_mode must be one of "
                                f"{ROI_ALIGN_COORDINATE_MODES}, got {self.coordinate_transformation_mode!r}")
        for name, v in zip(("output_height", "output_width", "sampling_ratio"), sizes):
            object.__setattr__(self, name, v)
        object.__setattr__(self, "spatial_scale", scale)

    def dependencies(self) -> list[str]:
        """[input, rois, batch_indices]."""
        return [self.input, self.rois, self.batch_indices]

    def _id_fields(self) -> tuple[str, ...]:
        return ("rois", "batch_indices")

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """(num_rois, C, output_height, output_width), bfyx, the input's data type. Raises ShapeError for an input
        that is not rank 4, rois that are not (num_rois, 4), batch indices that are not (num_rois,); DTypeError for
        a non-float input or rois, or batch indices that are not i32."""
        if len(inputs) != 3:
            raise self.shape_error("number of inputs (input, rois, batch_indices)", 3, len(inputs))
        x, rois, idx = inputs
        if x.rank != 4:
            raise self.shape_error("input rank (N, C, H, W)", 4, f"{x.rank} (shape {x.shape})")
        if rois.rank != 2 or rois.shape[1] != 4:
            raise self.shape_error(f"rois '{self.rois}' shape", "(num_rois, 4)", rois.shape)
        if idx.rank != 1 or idx.shape[0] != rois.shape[0]:
            raise self.shape_error(f"batch_indices '{self.batch_indices}' shape", f"({rois.shape[0]},) (one per RoI)",
                                   idx.shape)
        for what, lay in (("input", x), (f"rois '{self.rois}'", rois)):
            if lay.dtype not in _FLOATS:
                raise DTypeError(f"roi_align '{self.id}': {what} data type: expected f32 or f16, got "
                                 f"{lay.dtype.value}")
        if idx.dtype != DataType.i32:
            raise DTypeError(f"roi_align '{self.id}': batch_indices '{self.batch_indices}' data type: expected i32, "
                             f"got {idx.dtype.value}")
        return Layout(x.dtype, Format.bfyx, (rois.shape[0], x.shape[1], self.output_height, self.output_width))
