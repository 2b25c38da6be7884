"""Crop: a box of the input at given offsets (clDNN ``crop``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import TopologyError
from ..layout import Layout
from ..ops.shape import CropAttrs
from .base import Primitive, one_input


@dataclass(frozen=True)
class Crop(Primitive, type_name="crop", attrs=CropAttrs):
    """Output of ``shape`` read from the input starting at ``offsets`` (both of the input's rank)."""

    input: str = ""
    shape: Any = ()
    offsets: Any = None

    def __post_init__(self) -> None:
        super().__post_init__()
        try:
            shape = tuple(int(s) for s in self.shape)
            offsets = tuple(int(o) for o in (self.offsets if self.offsets is not None else (0,) * len(shape)))
        except (TypeError, ValueError):
            raise TopologyError(f"crop '{self.id}': shape and offsets must be sequences of ints, got "
                                f"{self.shape!r} at {self.offsets!r}") from None
        if len(shape) != len(offsets) or min(shape, default=0) < 1 or min(offsets, default=0) < 0:
            raise TopologyError(f"crop '{self.id}': shape and offsets need equal length, positive sizes and "
                                f"non-negative offsets, got {shape} at {offsets}")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "offsets", offsets)

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """The crop box in the input's format; raises ShapeError when it leaves the input."""
        x = one_input(self, inputs)
        if len(self.shape) != x.rank:
            raise self.shape_error("rank of shape/offsets", x.rank, len(self.shape))
        for d, (s, o, n) in enumerate(zip(self.shape, self.offsets, x.shape)):
            if o + s > n:
                raise self.shape_error(f"crop box in dimension {d}", f"offset + size <= {n}", f"{o} + {s}")
        return Layout(x.dtype, x.format, self.shape)
