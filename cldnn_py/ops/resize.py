"""Typed attributes of resize (ONNX Resize-19 semantics; the fields are ONNX's attribute names)."""

from __future__ import annotations

from dataclasses import dataclass

from .base import OpAttrs


@dataclass(frozen=True)
class ResizeAttrs(OpAttrs):
    """Output ``sizes`` per dimension; ``scales`` (None: sizes / input sizes); ``mode`` nearest/linear/cubic;
    ``coordinate_transformation_mode``, ``nearest_mode``, ``cubic_coeff_a``, ``exclude_outside``,
    ``extrapolation_value``, ``antialias`` and ``roi`` as in ONNX (see cldnn_py.primitives.resize.Resize)."""

    sizes: tuple[int, ...] = ()
    scales: tuple[float, ...] | None = None
    mode: str = "nearest"
    coordinate_transformation_mode: str = "half_pixel"
    nearest_mode: str = "round_prefer_floor"
    cubic_coeff_a: float = -0.75
    exclude_outside: bool = False
    extrapolation_value: float = 0.0
    antialias: bool = False
    roi: tuple[float, ...] | None = None
