"""ArgMax: the index of the largest (or smallest) element along one axis (clDNN ``arg_max_min``, ONNX ArgMax)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import TopologyError
from ..layout import DataType, Format, Layout
from ..ops.reduction import ArgMaxAttrs
from .base import Primitive, one_input


@dataclass(frozen=True)
class ArgMax(Primitive, type_name="arg_max", attrs=ArgMaxAttrs):
    """y = argmax (``mode="max"``) or argmin (``mode="min"``) of the input along ``axis``, as i32 indices.

    ``axis`` is a logical axis (negative counts from the end). Ties give the first index, or the last with
    ``select_last_index``; a NaN counts as larger than (``max``) / smaller than (``min``) every number, as in
    numpy. ``keep_dims`` keeps the axis with size 1, otherwise it is removed (rank-1 input → shape ``(1,)``).
    Input of rank 1-6 in any format; the output is bfyx i32 (ONNX int64 is stored as i32).
    """

    input: str = ""
    axis: int = 0
    keep_dims: bool = True
    select_last_index: bool = False
    mode: str = "max"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.mode not in ("max", "min"):
            raise TopologyError(f"arg_max '{self.id}': mode must be 'max' or 'min', got {self.mode!r}")
        try:
            object.__setattr__(self, "axis", int(self.axis))
        except (TypeError, ValueError):
            raise TopologyError(f"arg_max '{self.id}': axis must be an int, got {self.axis!r}") from None
        object.__setattr__(self, "keep_dims", bool(self.keep_dims))
        object.__setattr__(self, "select_last_index", bool(self.select_last_index))

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """i32 bfyx with the axis set to 1 (keep_dims) or removed; raises ShapeError for an axis out of range."""
        x = one_input(self, inputs)
        if not -x.rank <= self.axis < x.rank:
            raise self.shape_error(f"axis for input shape {x.shape}", f"in [{-x.rank}, {x.rank})", self.axis)
        ax = self.axis % x.rank
        if self.keep_dims:
            shape = tuple(1 if i == ax else s for i, s in enumerate(x.shape))
        else:
            shape = tuple(s for i, s in enumerate(x.shape) if i != ax) or (1,)
        return Layout(DataType.i32, Format.bfyx, shape)
