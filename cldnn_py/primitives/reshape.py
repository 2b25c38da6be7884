"""Reshape: the same elements in row-major (logical NCHW) order under a new shape (clDNN ``reshape``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import TopologyError
from ..layout import Format, Layout
from ..ops.shape import ReshapeAttrs
from .base import Primitive, one_input


@dataclass(frozen=True)
class Reshape(Primitive, type_name="reshape", attrs=ReshapeAttrs):
    """New ``shape`` of rank 1-6 (5-6: row-major bfyx, see Layout); one entry may be -1 (inferred). Output is bfyx."""

    input: str = ""
    shape: Any = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        shape = self.int_tuple("shape", "shape must be a tuple of ints")
        if not 1 <= len(shape) <= 6 or shape.count(-1) > 1 or any(s < 1 and s != -1 for s in shape):
            raise TopologyError(f"reshape '{self.id}': shape needs rank 1-6, positive sizes and at most one -1, "
                                f"got {shape}")
        object.__setattr__(self, "shape", shape)

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """bfyx of the resolved shape; raises ShapeError when the element counts differ."""
        x = one_input(self, inputs)
        shape = list(self.shape)
        known = 1
        for s in shape:
            known *= s if s != -1 else 1
        if -1 in shape:
            if x.count() % known:
                raise self.shape_error("element count", f"a multiple of {known}", x.count())
            shape[shape.index(-1)] = x.count() // known
        total = 1
        for s in shape:
            total *= s
        if total != x.count():
            raise self.shape_error(f"element count of shape {tuple(self.shape)}", x.count(), total)
        return Layout(x.dtype, Format.bfyx, tuple(shape))
