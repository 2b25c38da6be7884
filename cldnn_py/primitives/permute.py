"""Permute: transpose of the logical dimensions (clDNN ``permute``, ONNX Transpose)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import TopologyError
from ..layout import Format, Layout
from ..ops.shape import PermuteAttrs
from .base import Primitive, one_input


@dataclass(frozen=True)
class Permute(Primitive, type_name="permute", attrs=PermuteAttrs):
    """Output dimension i is input dimension ``order[i]`` (numpy.transpose semantics). Output is bfyx."""

    input: str = ""
    order: Any = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        order = self.int_tuple("order", "order must be ints")
        if sorted(order) != list(range(len(order))):
            raise TopologyError(f"permute '{self.id}': order must be a permutation of 0..{len(order) - 1}, "
                                f"got {order}")
        object.__setattr__(self, "order", order)

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """Permuted shape; raises ShapeError when the order's length differs from the input rank."""
        x = one_input(self, inputs)
        if len(self.order) != x.rank:
            raise self.shape_error("order length (input rank)", x.rank, len(self.order))
        return Layout(x.dtype, Format.bfyx, tuple(x.shape[o] for o in self.order))
