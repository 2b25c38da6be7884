"""Pad: grow (or shrink) every dimension by a border (clDNN ``border``, ONNX Pad)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import TopologyError
from ..layout import Format, Layout
from ..ops.shape import PadAttrs
from .base import Primitive, one_input

PAD_MODES = ("constant", "reflect", "edge", "wrap")


@dataclass(frozen=True)
class Pad(Primitive, type_name="pad", attrs=PadAttrs):
    """Output size per dimension d is ``n_d + pads_begin[d] + pads_end[d]``; output element ``o`` reads input
    coordinate ``i = o - pads_begin[d]``. Negative pads remove elements. Inside the input the element is copied;
    outside, by ``mode`` (numpy.pad / ONNX Pad):

    - ``constant``: ``value``;
    - ``reflect``: mirrored without repeating the edge (period 2(n-1); ``[1 2 3]`` -> ``3 2 | 1 2 3 | 2 1``);
    - ``edge``: the nearest edge element;
    - ``wrap``: periodic (``i mod n``).

    ``pads_begin``/``pads_end`` have one entry per input dimension (rank 1-6). The output keeps the input's format
    (rank <= 4) and data type. Raises TopologyError for bad parameters, ShapeError for an empty result.
    """

    input: str = ""
    pads_begin: Any = ()
    pads_end: Any = ()
    mode: str = "constant"
    value: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        try:
            begin = tuple(int(v) for v in self.pads_begin)
            end = tuple(int(v) for v in self.pads_end)
            value = float(self.value)
        except (TypeError, ValueError):
            raise TopologyError(f"pad '{self.id}': pads must be sequences of ints and value a number, got "
                                f"{self.pads_begin!r}, {self.pads_end!r}, {self.value!r}") from None
        if len(begin) != len(end) or not begin:
            raise TopologyError(f"pad '{self.id}': pads_begin and pads_end need one entry per dimension, got "
                                f"{begin}, {end}")
        if self.mode not in PAD_MODES:
            raise TopologyError(f"pad '{self.id}': mode must be one of {PAD_MODES}, got {self.mode!r}")
        object.__setattr__(self, "pads_begin", begin)
        object.__setattr__(self, "pads_end", end)
        object.__setattr__(self, "value", value)

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """Padded shape in the input's format (bfyx for rank 5-6). Raises ShapeError on a rank mismatch or an
        empty dimension."""
        x = one_input(self, inputs)
        if len(self.pads_begin) != x.rank:
            raise self.shape_error("length of pads (input rank)", x.rank, len(self.pads_begin))
        shape = tuple(n + lo + hi for n, lo, hi in zip(x.shape, self.pads_begin, self.pads_end))
        if min(shape) < 1:
            raise self.shape_error(f"padded shape of {x.shape} with pads {self.pads_begin}/{self.pads_end}",
                                   "positive sizes", shape)
        return Layout(x.dtype, x.format if len(shape) <= 4 else Format.bfyx, shape)
