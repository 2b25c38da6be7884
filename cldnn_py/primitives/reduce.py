"""Reduce: mean, sum, max, min or product over a set of axes (clDNN ``reduce``; ONNX ReduceMean/Sum/Max/Min/Prod)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import TopologyError
from ..layout import Format, Layout
from ..ops.reduction import ReduceAttrs, ReduceMode, normalize_axes
from .base import Primitive, one_input


@dataclass(frozen=True)
class Reduce(Primitive, type_name="reduce", attrs=ReduceAttrs):
    """y = mode over ``axes`` of the input (logical axes, negative count from the end; empty = all axes).

    ``keep_dims`` keeps every reduced axis as a size-1 dimension; otherwise the reduced axes are removed, and a
    reduction over every axis gives shape ``(1,)`` (an ONNX rank-0 tensor is stored as ``(1,)``). Input of rank
    1-6 in any format; the output is bfyx in the input's data type.
    """

    input: str = ""
    mode: ReduceMode | str = ReduceMode.sum
    axes: Any = ()
    keep_dims: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        self.enum_field("mode", ReduceMode)
        try:
            axes = tuple(int(a) for a in ([self.axes] if isinstance(self.axes, int) else self.axes))
        except (TypeError, ValueError):
            raise TopologyError(f"reduce '{self.id}': axes must be ints, got {self.axes!r}") from None
        object.__setattr__(self, "axes", axes)
        object.__setattr__(self, "keep_dims", bool(self.keep_dims))

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """bfyx: reduced axes become 1 (keep_dims) or are removed; raises ShapeError for a bad axis."""
        x = one_input(self, inputs)
        try:
            axes = normalize_axes(self.axes, x.rank)
        except ValueError as e:
            raise self.shape_error(f"axes for input shape {x.shape}", "distinct axes in range", str(e)) from None
        if self.keep_dims:
            shape = tuple(1 if i in axes else s for i, s in enumerate(x.shape))
        else:
            shape = tuple(s for i, s in enumerate(x.shape) if i not in axes) or (1,)
        return Layout(x.dtype, Format.bfyx, shape)
