"""Scatter: the data with updates written (or combined) at flat element offsets (clDNN ``scatter_elements_update``
on the flattened data; ONNX ScatterElements and ScatterND are converted to it)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import TopologyError
from ..layout import DataType, Format, Layout
from ..ops.shape import ScatterAttrs
from .base import Primitive

REDUCTIONS = ("none", "add", "mul", "max", "min")


@dataclass(frozen=True)
class Scatter(Primitive, type_name="scatter", attrs=ScatterAttrs):
    """``y = data`` with, for every update element u (in row-major order), ``y.flat[indices[u]] = updates[u]``
    (``reduction="none"``: with repeated offsets the last one wins) or ``y.flat[indices[u]] ∘= updates[u]`` for
    ``add``, ``mul``, ``max``, ``min`` (every update applied, in order).

    ``data`` of rank 1-6 (f32 or i32), ``indices`` i32 flat offsets into the data's logical row-major order, of the
    same element count as ``updates`` (the data's type). Offsets outside [0, data.count) update nothing (ONNX calls
    them an error; the ONNX converter checks constant ones). Output: the data's shape and type, bfyx. Raises
    TopologyError for an unknown reduction, ShapeError for mismatched counts or types.
    """

    data: str = ""
    indices: str = ""
    updates: str = ""
    reduction: str = "none"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.reduction not in REDUCTIONS:
            raise TopologyError(f"scatter '{self.id}': reduction must be one of {REDUCTIONS}, got {self.reduction!r}")

    def dependencies(self) -> list[str]:
        """[data, indices, updates]."""
        return [self.data, self.indices, self.updates]

    def _id_fields(self) -> tuple[str, ...]:
        return ("data", "indices", "updates")

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """The data's shape and type, bfyx."""
        if len(inputs) != 3:
            raise self.shape_error("number of inputs", 3, len(inputs))
        x, idx, upd = inputs
        if idx.dtype != DataType.i32:
            raise self.shape_error("indices data type", "i32", idx.dtype.value)
        if idx.count() != upd.count():
            raise self.shape_error("updates element count (that of the indices)", idx.count(), upd.count())
        if upd.dtype != x.dtype:
            raise self.shape_error("updates data type (the data's)", x.dtype.value, upd.dtype.value)
        return Layout(x.dtype, Format.bfyx, x.shape)
