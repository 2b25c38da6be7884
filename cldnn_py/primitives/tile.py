"""Tile: the input repeated along every dimension (numpy.tile, ONNX Tile)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import TopologyError
from ..layout import Format, Layout
from ..ops.shape import TileAttrs
from .base import Primitive, one_input


@dataclass(frozen=True)
class Tile(Primitive, type_name="tile", attrs=TileAttrs):
    """Output size per dimension d is ``n_d * repeats[d]``; output element ``o`` is input element ``o mod n_d``.

    ``repeats`` has one positive entry per input dimension (rank 1-6). The output keeps the input's format
    (rank <= 4) and data type. Raises TopologyError for bad repeats, ShapeError on a rank mismatch.
    """

    input: str = ""
    repeats: Any = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        reps = self.int_tuple("repeats", "repeats must be ints")
        if not reps or min(reps) < 1:
            raise TopologyError(f"tile '{self.id}': repeats must be positive, one per dimension, got {reps}")
        object.__setattr__(self, "repeats", reps)

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """Tiled shape in the input's format (bfyx for rank 5-6)."""
        x = one_input(self, inputs)
        if len(self.repeats) != x.rank:
            raise self.shape_error("length of repeats (input rank)", x.rank, len(self.repeats))
        shape = tuple(n * r for n, r in zip(x.shape, self.repeats))
        return Layout(x.dtype, x.format if len(shape) <= 4 else Format.bfyx, shape)
