"""Reorder: the same tensor in another format and/or data type (clDNN ``reorder``)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import TopologyError
from ..layout import DataType, Format, Layout
from ..ops.reorder import ReorderAttrs
from .base import Primitive, one_input

CONVERT_MODES = ("round", "truncate", "bool")


@dataclass(frozen=True)
class Reorder(Primitive, type_name="reorder", attrs=ReorderAttrs):
    """Converts to ``format`` and ``dtype`` (None keeps the input's). Integer → float is exact within f32 range.

    ``convert_mode`` says how values change type:

    - ``"round"`` (default): to an integer type, round to nearest even and saturate (OpenCL
      ``convert_<type>_sat_rte``), for float and integer inputs alike;
    - ``"truncate"``: C / numpy ``astype`` / ONNX Cast semantics: float → integer rounds toward zero (saturating,
      ``convert_<type>_sat_rtz``), integer → narrower integer wraps modulo 2^bits (a C cast);
    - ``"bool"``: ONNX Cast to bool: 1 where the value is non-zero, else 0 (in the output type).
    """

    input: str = ""
    format: Format = Format.bfyx
    dtype: DataType | None = None
    convert_mode: str = "round"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.format, Format) or (self.dtype is not None and not isinstance(self.dtype, DataType)):
            raise TopologyError(f"reorder '{self.id}': format must be a Format and dtype a DataType or None, got "
                                f"{self.format!r}, {self.dtype!r}")
        if self.convert_mode not in CONVERT_MODES:
            raise TopologyError(f"reorder '{self.id}': convert_mode must be one of {CONVERT_MODES}, got "
                                f"{self.convert_mode!r}")

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """The input's shape in the target format and data type."""
        x = one_input(self, inputs)
        return Layout(self.dtype or x.dtype, self.format, x.shape)
