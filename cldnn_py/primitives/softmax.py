"""Softmax / log-softmax along one axis or over the trailing axes: y = exp(x - max) / Σ exp(x - max)
(clDNN ``softmax``; ONNX Softmax and LogSoftmax, versions 1/11 and 13)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import TopologyError
from ..layout import Layout
from ..ops.normalization import SoftmaxAttrs
from .base import Primitive, one_input


@dataclass(frozen=True)
class Softmax(Primitive, type_name="softmax", attrs=SoftmaxAttrs):
    """Softmax of an input of rank 1-6 along ``axis`` (negative counts from the end; default 1, the features).

    ``log=True`` gives log-softmax, y = x - max - log Σ exp(x - max) (ONNX LogSoftmax), computed directly so it
    stays finite where the softmax underflows. ``coerce_2d=True`` normalizes over all the axes from ``axis`` to
    the last one together, i.e. the input is seen as the 2-D (prod(shape[:axis]), prod(shape[axis:])) and
    normalized along its second dimension (ONNX Softmax/LogSoftmax versions 1 and 11). The output has the input's
    layout. Raises ShapeError for an axis out of range.
    """

    input: str = ""
    axis: int = 1
    log: bool = False
    coerce_2d: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.axis, int) or isinstance(self.axis, bool):
            raise TopologyError(f"softmax '{self.id}': axis must be an int, got {self.axis!r}")
        object.__setattr__(self, "log", bool(self.log))
        object.__setattr__(self, "coerce_2d", bool(self.coerce_2d))

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """The input's layout; raises ShapeError for an axis out of range."""
        x = one_input(self, inputs)
        if not -x.rank <= self.axis < x.rank:
            raise self.shape_error("axis", f"in [{-x.rank}, {x.rank})", self.axis)
        return Layout(x.dtype, x.format, x.shape)
