"""Resize: nearest / linear / cubic interpolation to a new shape (clDNN ``resample``, ONNX Resize and Upsample)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import TopologyError
from ..layout import DataType, Format, Layout
from ..ops.resize import ResizeAttrs
from .base import Primitive, one_input

RESIZE_MODES = ("nearest", "linear", "cubic")
COORDINATE_MODES = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
                    "tf_half_pixel_for_nn", "tf_crop_and_resize")
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")


@dataclass(frozen=True)
class Resize(Primitive, type_name="resize", attrs=ResizeAttrs):
    """Output of shape ``sizes`` (one entry per input dimension, rank 1-6); each output coordinate maps back to
    an input coordinate per dimension (ONNX Resize-19 semantics, applied separably):

    - ``coordinate_transformation_mode``: half_pixel ``(o + 0.5) / s - 0.5``, half_pixel_symmetric (the
      same, centred when ``m != n * s``), pytorch_half_pixel (half_pixel, 0 when the output size m is 1),
      align_corners ``o * (n - 1) / (m - 1)``, asymmetric ``o / s``, tf_half_pixel_for_nn
      ``(o + 0.5) / s``, tf_crop_and_resize (``roi``; outside the input -> ``extrapolation_value``);
    - ``mode``: nearest (``nearest_mode`` round_prefer_floor/ceil, floor, ceil, or ``simple`` = floor when
      upsampling and ceil when downsampling, the rule of Upsample and Resize-10), linear (2 taps), cubic
      (4 taps, ``cubic_coeff_a``, ``exclude_outside``); ``antialias`` widens linear/cubic filters when
      downsampling.

    ``scales`` (one float per dimension) is the scale s of the coordinate transform; None means
    ``sizes[d] / n_d``. ``roi`` is (starts..., ends...) in normalized coordinates, used by tf_crop_and_resize
    only. The output keeps the input's format (rank <= 4) and data type (f32). Raises TopologyError for bad
    parameters, ShapeError on a rank mismatch.
    """

    input: str = ""
    sizes: Any = ()
    scales: Any = None
    mode: str = "nearest"
    coordinate_transformation_mode: str = "half_pixel"
    nearest_mode: str = "round_prefer_floor"
    cubic_coeff_a: float = -0.75
    exclude_outside: bool = False
    extrapolation_value: float = 0.0
    antialias: bool = False
    roi: Any = None

    def __post_init__(self) -> None:
        super().__post_init__()
        try:
            sizes = tuple(int(s) for s in self.sizes)
            scales = None if self.scales is None else tuple(float(s) for s in self.scales)
            roi = None if self.roi is None else tuple(float(r) for r in self.roi)
        except (TypeError, ValueError):
            raise TopologyError(f"resize '{self.id}': sizes must be ints, scales and roi floats, got "
                                f"{self.sizes!r}, {self.scales!r}, {self.roi!r}") from None
        if not sizes or min(sizes) < 1 or (scales is not None and (len(scales) != len(sizes) or min(scales) <= 0)):
            raise TopologyError(f"resize '{self.id}': sizes need positive entries and scales (if given) one positive "
                                f"entry per dimension, got {sizes}, {scales}")
        if roi is not None and len(roi) != 2 * len(sizes):
            raise TopologyError(f"resize '{self.id}': roi needs {2 * len(sizes)} values, got {roi}")
        for what, v, allowed in (("mode", self.mode, RESIZE_MODES),
                                 ("coordinate_transformation_mode", self.coordinate_transformation_mode,
                                  COORDINATE_MODES),
                                 ("nearest_mode", self.nearest_mode, NEAREST_MODES)):
            if v not in allowed:
                raise TopologyError(f"resize '{self.id}': {what} must be one of {allowed}, got {v!r}")
        if self.coordinate_transformation_mode == "tf_crop_and_resize" and roi is None:
            raise TopologyError(f"resize '{self.id}': tf_crop_and_resize needs roi")
        if self.antialias and self.mode == "nearest":
            raise TopologyError(f"resize '{self.id}': antialias applies to linear and cubic modes only")
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "scales", scales)
        object.__setattr__(self, "roi", roi)
        object.__setattr__(self, "cubic_coeff_a", float(self.cubic_coeff_a))
        object.__setattr__(self, "extrapolation_value", float(self.extrapolation_value))
        object.__setattr__(self, "exclude_outside", bool(self.exclude_outside))
        object.__setattr__(self, "antialias", bool(self.antialias))

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """``sizes`` in the input's format (bfyx for rank 5-6) and type; f32 or f16 (storage) only."""
        x = one_input(self, inputs)
        if len(self.sizes) != x.rank:
            raise self.shape_error("length of sizes (input rank)", x.rank, len(self.sizes))
        if x.dtype not in (DataType.f32, DataType.f16):
            raise self.shape_error("data type", "f32 or f16", x.dtype.value)
        return Layout(x.dtype, x.format if x.rank <= 4 else Format.bfyx, self.sizes)
