"""Scale: y = x * scale + bias with numpy broadcasting of scale and bias (clDNN ``scale``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import TopologyError
from ..layout import Layout
from ..ops.normalization import ScaleAttrs
from .base import Primitive, one_input


@dataclass(frozen=True)
class Scale(Primitive, type_name="scale", attrs=ScaleAttrs):
    """x (N, C, H, W) times ``scale`` plus optional ``bias``; both broadcast to x by numpy rules.

    A per-channel scale is given as shape (1, C, 1, 1) or (C, 1, 1). The output has x's shape and format.
    """

    input: str = ""
    scale: str = ""
    bias: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.input or not self.scale:
            raise TopologyError(f"scale '{self.id}': input and scale ids are required")

    def dependencies(self) -> list[str]:
        """[input, scale] + [bias] when given."""
        return [self.input, self.scale] + ([self.bias] if self.bias else [])

    def _id_fields(self) -> tuple[str, ...]:
        return ("scale", "bias")

    def attrs(self) -> ScaleAttrs:
        """Whether a bias input is present."""
        return ScaleAttrs(has_bias=self.bias is not None)

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """x's layout; raises ShapeError when scale or bias do not broadcast to x."""
        x = one_input(self, inputs)
        for name, lay in zip([self.scale, self.bias], inputs[1:]):
            try:
                ok = np.broadcast_shapes(x.shape, lay.shape) == x.shape
            except ValueError:
                ok = False
            if not ok:
                raise self.shape_error(f"'{name}' shape broadcastable to the input", x.shape, lay.shape)
        return Layout(x.dtype, x.format, x.shape)
