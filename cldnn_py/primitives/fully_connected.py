"""FullyConnected: y = x·Wᵀ + bias over the flattened input (clDNN ``fully_connected``)."""

from __future__ import annotations

from dataclasses import dataclass

from ..layout import Format, Layout
from .base import Primitive, WeightedMixin, one_input


@dataclass(frozen=True)
class FullyConnected(WeightedMixin, Primitive, type_name="fully_connected"):
    """Input (N, ...) is flattened to (N, K); weights ``Data`` (M, K); bias (M,); output (N, M) in bfyx."""

    input: str = ""
    weights: str = ""
    bias: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        self._require_input_and_weights()

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """(N, M), f32 bfyx."""
        x = one_input(self, inputs)
        k = x.count() // x.shape[0]
        w = inputs[1]
        if w.rank != 2 or w.shape[1] != k:
            raise self.shape_error(f"weights '{self.weights}' shape", f"(M, {k}) for input {x.shape}", w.shape)
        m = w.shape[0]
        if self.bias is not None and inputs[2].count() != m:
            raise self.shape_error(f"bias '{self.bias}' shape", f"({m},)", inputs[2].shape)
        return Layout(x.dtype, Format.bfyx, (x.shape[0], m))
