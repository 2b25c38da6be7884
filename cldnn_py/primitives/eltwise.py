"""Eltwise: an element-wise operation over N inputs with numpy broadcasting (clDNN ``eltwise``)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..errors import TopologyError
from ..layout import Format, Layout
from .base import Primitive


class EltwiseMode(str, enum.Enum):
    """sum (optionally with per-input coefficients), sub, prod, div, max, min; folded left to right."""

    sum = "sum"
    sub = "sub"
    prod = "prod"
    div = "div"
    max = "max"
    min = "min"


@dataclass(frozen=True)
class Eltwise(Primitive):
    """y = in0 ∘ in1 ∘ ... with numpy broadcasting of the logical shapes (trailing dimensions aligned).

    ``coefficients`` (one float per input) is allowed for ``sum`` only: y = Σ c_i·in_i.
    The output takes the format of the first input whose shape equals the output shape (bfyx otherwise).
    """

    inputs: Any = ()
    mode: EltwiseMode | str = EltwiseMode.sum
    coefficients: Any = None
    type_name: ClassVar[str] = "eltwise"

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.inputs, str) or len(self.inputs) < 2:
            raise TopologyError(f"eltwise '{self.id}': needs a list of at least 2 input ids, got {self.inputs!r}")
        object.__setattr__(self, "inputs", tuple(self.inputs))
        try:
            object.__setattr__(self, "mode", EltwiseMode(self.mode))
        except ValueError:
            raise TopologyError(f"eltwise '{self.id}': mode must be one of "
                                f"{[m.value for m in EltwiseMode]}, got {self.mode!r}") from None
        if self.coefficients is not None:
            if self.mode != EltwiseMode.sum or len(self.coefficients) != len(self.inputs):
                mode = EltwiseMode(self.mode).value
                raise TopologyError(f"eltwise '{self.id}': coefficients need mode sum and one value per input "
                                    f"({len(self.inputs)}), got mode {mode} and {self.coefficients!r}")
            object.__setattr__(self, "coefficients", tuple(float(c) for c in self.coefficients))

    def dependencies(self) -> list[str]:
        """The inputs, in order."""
        return list(self.inputs)

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """Broadcast shape of all inputs; raises ShapeError when they do not broadcast."""
        try:
            shape = np.broadcast_shapes(*(x.shape for x in inputs))
        except ValueError:
            raise self.shape_error("input shapes that broadcast", "numpy-broadcastable shapes",
                                   [x.shape for x in inputs]) from None
        if len(shape) > 4:
            raise self.shape_error("output rank", "<= 4", len(shape))
        fmt = next((x.format for x in inputs if x.shape == shape and not x.format.is_weights), Format.bfyx)
        dtypes = {x.dtype for x in inputs}
        if len(dtypes) != 1:
            raise self.shape_error("input data types", "all equal", sorted(d.value for d in dtypes))
        return Layout(inputs[0].dtype, fmt, shape)
