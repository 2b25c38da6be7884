"""Concatenation of N inputs along one axis (clDNN ``concatenation``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import TopologyError
from ..layout import Layout
from ..ops.shape import ConcatenationAttrs
from .base import Primitive


@dataclass(frozen=True)
class Concatenation(Primitive, type_name="concatenation", attrs=ConcatenationAttrs):
    """Inputs of equal rank and equal sizes except along ``axis`` (negative counts from the end)."""

    inputs: Any = ()
    axis: int = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.inputs, str) or len(self.inputs) < 1:
            raise TopologyError(f"concatenation '{self.id}': needs a list of input ids, got {self.inputs!r}")
        object.__setattr__(self, "inputs", tuple(self.inputs))

    def dependencies(self) -> list[str]:
        """The inputs, in order."""
        return list(self.inputs)

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """Sizes summed along ``axis``; the first input's format. Raises ShapeError on mismatched shapes."""
        r = inputs[0].rank
        if not -r <= self.axis < r:
            raise self.shape_error("axis", f"in [{-r}, {r})", self.axis)
        ax = self.axis % r
        shape = list(inputs[0].shape)
        for i, x in enumerate(inputs[1:], 1):
            if x.rank != r or any(a != b for d, (a, b) in enumerate(zip(x.shape, shape)) if d != ax):
                raise self.shape_error(f"shape of input {i} '{self.inputs[i]}'",
                                       f"{tuple(shape)} except axis {ax}", x.shape)
            if x.dtype != inputs[0].dtype:
                raise self.shape_error(f"data type of input {i}", inputs[0].dtype.value, x.dtype.value)
            shape[ax] += x.shape[ax]
        return Layout(inputs[0].dtype, inputs[0].format, tuple(shape))
