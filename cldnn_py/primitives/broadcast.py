"""Broadcast: the input stretched to a larger shape by numpy broadcasting (clDNN ``broadcast``, ONNX Expand)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import TopologyError
from ..layout import Format, Layout
from ..ops.shape import BroadcastAttrs
from .base import Primitive, one_input


@dataclass(frozen=True)
class Broadcast(Primitive, type_name="broadcast", attrs=BroadcastAttrs):
    """Output of ``shape`` (rank 1-6, >= the input's rank). The input's dimensions align with the output's last
    ones (numpy rule); each input dimension equals the output's or is 1 (then repeated). Output element
    ``o`` reads input coordinate ``o_d`` where the input size is the output's and 0 where it is 1.

    The output keeps the input's format when ranks agree (rank <= 4), bfyx otherwise; the data type is kept.
    Raises TopologyError for a bad shape, ShapeError when the input does not broadcast to it.
    """

    input: str = ""
    shape: Any = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        shape = self.int_tuple("shape", "shape must be ints")
        if not 1 <= len(shape) <= 6 or min(shape) < 1:
            raise TopologyError(f"broadcast '{self.id}': shape needs rank 1-6 and positive sizes, got {shape}")
        object.__setattr__(self, "shape", shape)

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """``shape`` in the input's format (same rank <= 4) or bfyx."""
        x = one_input(self, inputs)
        r = len(self.shape)
        if x.rank > r or any(n not in (1, s) for n, s in zip(x.shape, self.shape[r - x.rank:])):
            raise self.shape_error(f"input shape {x.shape} broadcast to {self.shape}",
                                   "each input dimension equal to the output's or 1, aligned right", x.shape)
        fmt = x.format if x.rank == r and r <= 4 else Format.bfyx
        return Layout(x.dtype, fmt, self.shape)
