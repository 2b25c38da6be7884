"""BatchNorm (inference): y = (x - mean) / sqrt(var + eps) * scale + shift per channel (clDNN ``batch_norm``)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import TopologyError
from ..layout import Layout
from ..ops.normalization import BatchNormAttrs
from .base import Primitive, one_input


@dataclass(frozen=True)
class BatchNorm(Primitive, type_name="batch_norm", attrs=BatchNormAttrs):
    """Per-channel normalization of (N, C, ...) with ``Data`` of shape (C,): mean, variance, scale, shift.

    scale and shift are optional (1 and 0). ``epsilon`` is added to the variance (Ioffe & Szegedy 2015).
    """

    input: str = ""
    mean: str = ""
    variance: str = ""
    scale: str | None = None
    shift: str | None = None
    epsilon: float = 1e-5

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.input or not self.mean or not self.variance:
            raise TopologyError(f"batch_norm '{self.id}': input, mean and variance ids are required")

    def dependencies(self) -> list[str]:
        """[input, mean, variance] + [scale] + [shift] when given."""
        return [self.input, self.mean, self.variance] + [d for d in (self.scale, self.shift) if d]

    def _id_fields(self) -> tuple[str, ...]:
        return ("mean", "variance", "scale", "shift")

    def attrs(self) -> BatchNormAttrs:
        """epsilon plus which optional inputs are present."""
        return BatchNormAttrs(epsilon=self.epsilon, has_scale=self.scale is not None, has_shift=self.shift is not None)

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """The input's layout; every statistic must hold C values."""
        x = one_input(self, inputs)
        if x.rank < 2:
            raise self.shape_error("input rank", ">= 2", x.rank)
        c = x.shape[1]
        names = [self.mean, self.variance] + [d for d in (self.scale, self.shift) if d]
        for name, lay in zip(names, inputs[1:]):
            if lay.count() != c:
                raise self.shape_error(f"'{name}' shape", f"({c},)", lay.shape)
        return Layout(x.dtype, x.format, x.shape)
