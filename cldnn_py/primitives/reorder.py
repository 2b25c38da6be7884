"""Reorder: the same tensor in another format and/or data type (clDNN ``reorder``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..errors import TopologyError
from ..layout import DataType, Format, Layout
from .base import Primitive, one_input


@dataclass(frozen=True)
class Reorder(Primitive):
    """Converts to ``format`` and ``dtype`` (None keeps the input's). Float → integer conversion rounds to nearest
    even and saturates (OpenCL ``convert_<type>_sat_rte``); integer → float is exact within f32 range."""

    input: str = ""
    format: Format = Format.bfyx
    dtype: DataType | None = None
    type_name: ClassVar[str] = "reorder"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.format, Format) or (self.dtype is not None and not isinstance(self.dtype, DataType)):
            raise TopologyError(f"reorder '{self.id}': format must be a Format and dtype a DataType or None, got "
                                f"{self.format!r}, {self.dtype!r}")

    def dependencies(self) -> list[str]:
        """[input]."""
        return [self.input]

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """The input's shape in the target format and data type."""
        x = one_input(self, inputs)
        return Layout(self.dtype or x.dtype, self.format, x.shape)
