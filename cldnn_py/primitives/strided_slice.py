"""StridedSlice: ``x[b0:e0:s0, b1:e1:s1, ...]`` with numpy / ONNX Slice semantics (clDNN ``strided_slice``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import TopologyError
from ..layout import Format, Layout
from ..ops.shape import StridedSliceAttrs, slice_ranges
from .base import Primitive, one_input


@dataclass(frozen=True)
class StridedSlice(Primitive, type_name="strided_slice", attrs=StridedSliceAttrs):
    """Output element ``i`` (per dimension d) is input element ``start_d + i * step_d``.

    ``begin``, ``end`` and ``steps`` have one entry per input dimension (rank 1-6; ``steps`` defaults to ones);
    they follow :func:`slice_ranges` (Python slice semantics, clamped; steps may be negative, never zero). The
    output keeps the input's format (rank <= 4) and data type. Raises TopologyError for bad parameters and
    ShapeError when a dimension of the result would be empty (zero-size tensors are not supported).
    """

    input: str = ""
    begin: Any = ()
    end: Any = ()
    steps: Any = None

    def __post_init__(self) -> None:
        super().__post_init__()
        try:
            begin = tuple(int(v) for v in self.begin)
            end = tuple(int(v) for v in self.end)
            steps = tuple(int(v) for v in (self.steps if self.steps is not None else (1,) * len(begin)))
        except (TypeError, ValueError):
            raise TopologyError(f"strided_slice '{self.id}': begin, end and steps must be sequences of ints, got "
                                f"{self.begin!r}, {self.end!r}, {self.steps!r}") from None
        if not len(begin) == len(end) == len(steps) or not begin or 0 in steps:
            raise TopologyError(f"strided_slice '{self.id}': begin, end and steps need one entry per dimension and "
                                f"non-zero steps, got {begin}, {end}, {steps}")
        object.__setattr__(self, "begin", begin)
        object.__setattr__(self, "end", end)
        object.__setattr__(self, "steps", steps)

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """Sliced shape in the input's format (bfyx for rank 5-6). Raises ShapeError on a rank mismatch or an
        empty result."""
        x = one_input(self, inputs)
        if len(self.begin) != x.rank:
            raise self.shape_error("length of begin/end/steps (input rank)", x.rank, len(self.begin))
        ranges = slice_ranges(self.begin, self.end, self.steps, x.shape)
        shape = tuple(len(r) for r in ranges)
        if min(shape) < 1:
            raise self.shape_error(f"sliced shape of input {x.shape} (begin {self.begin}, end {self.end}, steps "
                                   f"{self.steps})", "no empty dimension", shape)
        return Layout(x.dtype, x.format if len(shape) <= 4 else Format.bfyx, shape)
