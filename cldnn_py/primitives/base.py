"""The base of every primitive descriptor: a frozen dataclass with an id, its inputs and shape inference.

A primitive is the user's description of one operation (clDNN ``primitive``). Its ``dependencies()`` are the ids it
reads, in kernel argument order (data inputs first, then weights, bias ...). ``calc_output_layout`` is the
output-layout calculation that Program runs for every program_node; it raises ShapeError naming the primitive.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from ..errors import ShapeError, TopologyError
from ..layout import Layout
from ..ops.base import NoAttrs, OpAttrs


def yx_pair(value: Any, name: str, pid: str) -> tuple[int, int]:
    """A primitive's spatial attribute ``name`` (stride, pad ...) given as an int (both axes) or a (y, x) pair, as a
    tuple of two ints; raises TopologyError naming primitive ``pid`` otherwise."""
    if isinstance(value, int):
        return (value, value)
    try:
        y, x = value
        return (int(y), int(x))
    except (TypeError, ValueError):
        raise TopologyError(f"primitive '{pid}': {name} must be an int or a (y, x) pair, got {value!r}") from None


@dataclass(frozen=True)
class Primitive:
    """Base of all primitives. ``id`` is unique in a Topology; subclasses add inputs and parameters."""

    id: str
    type_name: ClassVar[str] = "primitive"
    attrs_type: ClassVar[type[OpAttrs]] = NoAttrs  # the typed attributes (cldnn_py.ops) kernels receive

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise TopologyError(f"primitive id must be a non-empty string, got {self.id!r}")

    def dependencies(self) -> list[str]:
        """Ids of the primitives this one reads, in kernel argument order."""
        return []

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """Output layout from the layouts of ``dependencies()`` (same order). Raises ShapeError."""
        raise NotImplementedError

    def attrs(self) -> OpAttrs:
        """The typed attributes (``attrs_type``, a frozen dataclass of :mod:`cldnn_py.ops`) that kernels and passes
        read: the fields of ``attrs_type`` taken from this primitive's fields of the same names."""
        return self.attrs_type(**{f.name: getattr(self, f.name) for f in fields(self.attrs_type)})

    def _id_fields(self) -> tuple[str, ...]:
        return ()

    def shape_error(self, what: str, expected: Any, actual: Any) -> ShapeError:
        """A ShapeError naming this primitive, with the expected and actual value."""
        return ShapeError(f"{self.type_name} '{self.id}': {what}: expected {expected}, got {actual}")


class WeightedMixin:
    """Shared by primitives reading ``input``, ``weights`` and an optional ``bias`` (convolution, deconvolution,
    fully connected): their dependency order and the check that both required ids are given."""

    id: str
    type_name: ClassVar[str]
    input: str
    weights: str
    bias: str | None

    def dependencies(self) -> list[str]:
        """[input, weights] + [bias] when given."""
        return [self.input, self.weights] + ([self.bias] if self.bias else [])

    def _id_fields(self) -> tuple[str, ...]:
        return ("bias",)

    def _require_input_and_weights(self) -> None:
        """Raises TopologyError naming the primitive when the input or weights id is missing."""
        if not self.input or not self.weights:
            raise TopologyError(f"{self.type_name} '{self.id}': input and weights ids are required")


def one_input(prim: Primitive, inputs: list[Layout]) -> Layout:
    """The single input layout of a one-input primitive."""
    if len(inputs) < 1:
        raise prim.shape_error("number of inputs", ">= 1", len(inputs))
    return inputs[0]
