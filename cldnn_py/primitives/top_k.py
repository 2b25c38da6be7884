"""TopK: the k largest or smallest elements along one axis, or their indices (clDNN ``arg_max_min`` with top_k,
ONNX TopK)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import TopologyError
from ..layout import DataType, Format, Layout
from ..ops.reduction import TopKAttrs
from .base import Primitive, one_input


@dataclass(frozen=True)
class TopK(Primitive, type_name="top_k", attrs=TopKAttrs):
    """y = the ``k`` largest (``largest=True``) or smallest elements of the input along ``axis``, in that order
    (``output="values"``, the input's data type) or their indices along the axis (``output="indices"``, i32).

    Order (ONNX TopK with sorted=1, numpy's stable argsort): ties keep the lower index first; a NaN comes after
    every number (for both directions) and NaNs in index order. The output has the input's shape with the axis set
    to ``k``, bfyx. ONNX's two outputs are two primitives over the same input (each a cheap rank count).
    Input f32 or i32, rank 1-6, any format. Raises TopologyError for a bad ``output`` or ``k`` < 1; ShapeError
    when the axis is out of range or ``k`` exceeds the axis size.
    """

    input: str = ""
    axis: int = -1
    k: int = 1
    largest: bool = True
    output: str = "values"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.output not in ("values", "indices"):
            raise TopologyError(f"top_k '{self.id}': output must be 'values' or 'indices', got {self.output!r}")
        try:
            object.__setattr__(self, "axis", int(self.axis))
            object.__setattr__(self, "k", int(self.k))
        except (TypeError, ValueError):
            raise TopologyError(f"top_k '{self.id}': axis and k must be ints, got {self.axis!r}, {self.k!r}") \
                from None
        if self.k < 1:
            raise TopologyError(f"top_k '{self.id}': k must be >= 1, got {self.k}")
        object.__setattr__(self, "largest", bool(self.largest))

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """bfyx, the input's shape with the axis set to k; values in the input's type, indices i32."""
        x = one_input(self, inputs)
        if not -x.rank <= self.axis < x.rank:
            raise self.shape_error(f"axis for input shape {x.shape}", f"in [{-x.rank}, {x.rank})", self.axis)
        ax = self.axis % x.rank
        if self.k > x.shape[ax]:
            raise self.shape_error(f"k for axis {ax} of input shape {x.shape}", f"<= {x.shape[ax]}", self.k)
        shape = tuple(self.k if i == ax else s for i, s in enumerate(x.shape))
        return Layout(x.dtype if self.output == "values" else DataType.i32, Format.bfyx, shape)
