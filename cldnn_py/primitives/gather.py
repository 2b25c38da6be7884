"""Gather: slices of the data picked by an index tensor along one axis (clDNN ``gather``, ONNX Gather)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import TopologyError
from ..layout import DataType, Format, Layout
from ..ops.shape import GatherAttrs
from .base import Primitive


@dataclass(frozen=True)
class Gather(Primitive, type_name="gather", attrs=GatherAttrs):
    """``out[i_0..i_{a-1}, j_0..j_{q-1}, i_{a+1}..] = data[i_0..i_{a-1}, idx[j], i_{a+1}..]`` (numpy.take).

    ``data`` of rank r (any data type the kernel copies), ``indices`` an i32 tensor of rank q (a rank-0 index is
    given as shape (1,) with ``scalar_index=True``, which drops the axis); negative indices count from the end
    (index + n). Output rank r + q - 1 (at least 1, at most 6), bfyx, the data's type. Indices outside [-n, n)
    are not checked on the device (the kernel clamps them into range). Raises TopologyError for a bad axis,
    ShapeError for bad shapes.
    """

    data: str = ""
    indices: str = ""
    axis: int = 0
    scalar_index: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.axis, int):
            raise TopologyError(f"gather '{self.id}': axis must be an int, got {self.axis!r}")

    def dependencies(self) -> list[str]:
        """[data, indices]."""
        return [self.data, self.indices]

    def _id_fields(self) -> tuple[str, ...]:
        return ("data", "indices")

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """data.shape[:axis] + indices.shape + data.shape[axis+1:] (indices dropped when ``scalar_index``)."""
        if len(inputs) != 2:
            raise self.shape_error("number of inputs", 2, len(inputs))
        x, idx = inputs
        if not -x.rank <= self.axis < x.rank:
            raise self.shape_error("axis", f"in [{-x.rank}, {x.rank})", self.axis)
        if idx.dtype != DataType.i32:
            raise self.shape_error("indices data type", "i32", idx.dtype.value)
        if self.scalar_index and idx.count() != 1:
            raise self.shape_error("element count of a scalar index", 1, idx.count())
        ax = self.axis % x.rank
        mid = () if self.scalar_index else idx.shape
        shape = x.shape[:ax] + mid + x.shape[ax + 1:]
        if len(shape) > 6:
            raise self.shape_error("output rank", "<= 6", len(shape))
        return Layout(x.dtype, Format.bfyx, shape or (1,))
