"""LRN across channels: local response normalization (Krizhevsky et al. 2012; clDNN ``lrn``, ONNX LRN)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import TopologyError
from ..layout import Layout
from ..ops.normalization import LRNAttrs
from .base import Primitive, one_input


@dataclass(frozen=True)
class LRN(Primitive, type_name="lrn", attrs=LRNAttrs):
    """y[c] = x[c] / (k + alpha / size * Σ_{c'} x[c']²) ** beta, c' in [c - (size-1)//2, c + size//2].

    ONNX's convention: ``alpha`` is divided by ``size``. Input (N, C, H, W), output the same.
    """

    input: str = ""
    size: int = 5
    alpha: float = 1e-4
    beta: float = 0.75
    k: float = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.size, int) or self.size < 1:
            raise TopologyError(f"lrn '{self.id}': size must be a positive int, got {self.size!r}")

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """The input's layout."""
        x = one_input(self, inputs)
        if x.rank < 2:
            raise self.shape_error("input rank", ">= 2", x.rank)
        return Layout(x.dtype, x.format, x.shape)
