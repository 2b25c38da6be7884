"""Eltwise: an element-wise operation over N inputs with numpy broadcasting (clDNN ``eltwise``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import TopologyError
from ..layout import Format, Layout
from ..ops.eltwise import EltwiseAttrs, EltwiseMode
from .base import Primitive


@dataclass(frozen=True)
class Eltwise(Primitive, type_name="eltwise", attrs=EltwiseAttrs):
    """y = in0 ∘ in1 ∘ ... with numpy broadcasting of the logical shapes (trailing dimensions aligned).

    ``coefficients`` (one float per input) is allowed for ``sum`` only: y = Σ c_i·in_i.
    The output takes the format of the first input whose shape equals the output shape (bfyx otherwise).
    Data types: every input has the same type (f32 or i32: integer modes compute in int, C semantics, so div
    truncates), which is the output's; in ``pow`` mode only the base (input 0) sets the output type and the
    exponents may be of another type (ONNX Pow: T and T1). Output rank > 4 (rank 5-6, bfyx only) is allowed when
    every input has the output's shape or a single element (no per-dimension broadcast there).
    """

    inputs: Any = ()
    mode: EltwiseMode | str = EltwiseMode.sum
    coefficients: Any = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.inputs, str) or len(self.inputs) < 2:
            raise TopologyError(f"eltwise '{self.id}': needs a list of at least 2 input ids, got {self.inputs!r}")
        object.__setattr__(self, "inputs", tuple(self.inputs))
        self.enum_field("mode", EltwiseMode)
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
        if len(shape) > 4 and any(x.shape != shape and x.count() != 1 for x in inputs):
            raise self.shape_error("inputs of an output of rank > 4", f"the output shape {shape} or one element",
                                   [x.shape for x in inputs])
        fmt = next((x.format for x in inputs if x.shape == shape and not x.format.is_weights), Format.bfyx)
        dtypes = {x.dtype for x in (inputs[:1] if self.mode == EltwiseMode.pow else inputs)}
        if len(dtypes) != 1:
            raise self.shape_error("input data types", "all equal", sorted(d.value for d in dtypes))
        return Layout(inputs[0].dtype, fmt, shape)
