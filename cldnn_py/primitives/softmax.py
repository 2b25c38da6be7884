"""Softmax along one axis: y = exp(x - max) / Σ exp(x - max) (clDNN ``softmax``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..layout import Layout
from .base import Primitive, one_input


@dataclass(frozen=True)
class Softmax(Primitive):
    """Softmax of any-rank input along ``axis`` (negative counts from the end; default 1, the features)."""

    input: str = ""
    axis: int = 1
    type_name: ClassVar[str] = "softmax"

    def dependencies(self) -> list[str]:
        """[input]."""
        return [self.input]

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """The input's layout; raises ShapeError for an axis out of range."""
        x = one_input(self, inputs)
        if not -x.rank <= self.axis < x.rank:
            raise self.shape_error("axis", f"in [{-x.rank}, {x.rank})", self.axis)
        return Layout(x.dtype, x.format, x.shape)
