"""The base of every primitive descriptor: a frozen dataclass with an id, its inputs and shape inference.

A primitive is the user's description of one operation (clDNN ``primitive``). Its ``dependencies()`` are the ids it
reads, in kernel argument order (data inputs first, then weights, bias ...). ``calc_output_layout`` is the
output-layout calculation that Program runs for every program_node; it raises ShapeError naming the primitive.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar, TypeVar

from ..errors import ShapeError, TopologyError
from ..layout import Format, Layout
from ..ops.base import NoAttrs, OpAttrs

E = TypeVar("E", bound=enum.Enum)


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

    def __init_subclass__(cls, type_name: str = "", attrs: type[OpAttrs] | None = None, **kwargs: Any) -> None:
        """``class Convolution(Primitive, type_name="convolution", attrs=ConvolutionAttrs)`` names the primitive type
        (as clDNN's primitive type ids) and its typed attributes (:mod:`cldnn_py.ops`)."""
        super().__init_subclass__(**kwargs)
        if type_name:
            cls.type_name = type_name
        if attrs is not None:
            cls.attrs_type = attrs

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise TopologyError(f"primitive id must be a non-empty string, got {self.id!r}")

    def dependencies(self) -> list[str]:
        """Ids of the primitives this one reads, in kernel argument order; by default ``[self.input]`` for a
        primitive with an ``input`` field (one data input), else none."""
        own = getattr(self, "input", None)
        return [own] if isinstance(own, str) else []

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """Output layout from the layouts of ``dependencies()`` (same order). Raises ShapeError."""
        raise NotImplementedError

    def attrs(self) -> OpAttrs:
        """The typed attributes (``attrs_type``, a frozen dataclass of :mod:`cldnn_py.ops`) that kernels and passes
        read: the fields of ``attrs_type`` taken from this primitive's fields of the same names."""
        return self.attrs_type(**{f.name: getattr(self, f.name) for f in fields(self.attrs_type)})

    def enum_field(self, field: str, enum_type: type[E]) -> E:
        """Set the field ``field`` to its member of ``enum_type`` (a str enum) and return it; raises TopologyError
        "<type> '<id>': <field> must be one of [...], got <value>"."""
        value = getattr(self, field)
        try:
            member = enum_type(value)
        except ValueError:
            raise TopologyError(f"{self.type_name} '{self.id}': {field} must be one of "
                                f"{[m.value for m in enum_type]}, got {value!r}") from None
        object.__setattr__(self, field, member)
        return member

    def int_tuple(self, field: str, rule: str) -> tuple[int, ...]:
        """The field ``field`` as a tuple of ints; raises TopologyError "<type> '<id>': <rule>, got <value>"."""
        value = getattr(self, field)
        try:
            return tuple(int(v) for v in value)
        except (TypeError, ValueError):
            raise TopologyError(f"{self.type_name} '{self.id}': {rule}, got {value!r}") from None

    def _id_fields(self) -> tuple[str, ...]:
        return ()

    def shape_error(self, what: str, expected: Any, actual: Any) -> ShapeError:
        """A ShapeError naming this primitive, with the expected and actual value."""
        return ShapeError(f"{self.type_name} '{self.id}': {what}: expected {expected}, got {actual}")


class WeightedMixin:
    """Shared by primitives reading ``input``, ``weights`` and an optional ``bias`` (convolution, deconvolution,
    fully connected): their dependency order, the check that both required ids are given, and the data / output
    checks of the windowed ones. Mixed into a :class:`Primitive` (whose ``shape_error`` it uses)."""

    id: str
    type_name: ClassVar[str]
    input: str
    weights: str
    bias: str | None
    shape_error: Callable[[str, Any, Any], ShapeError]

    def dependencies(self) -> list[str]:
        """[input, weights] + [bias] when given."""
        return [self.input, self.weights] + ([self.bias] if self.bias else [])

    def _id_fields(self) -> tuple[str, ...]:
        return ("bias",)

    def _require_input_and_weights(self) -> None:
        """Raises TopologyError naming the primitive when the input or weights id is missing."""
        if not self.input or not self.weights:
            raise TopologyError(f"{self.type_name} '{self.id}': input and weights ids are required")

    def _window_input(self, inputs: list[Layout]) -> tuple[Layout, Layout]:
        """(data, weights) layouts; raises ShapeError unless the data is rank 4 (N, C, H, W)."""
        if not inputs:
            raise self.shape_error("number of inputs", ">= 1", 0)
        x = inputs[0]
        if x.rank != 4:
            raise self.shape_error("input rank", 4, f"{x.rank} (shape {x.shape})")
        return x, inputs[1]

    def _window_output(self, inputs: list[Layout], oc: int, oh: int, ow: int) -> Layout:
        """(N, OC, OH, OW) in the data's format (bfyx for weights formats) and data type; raises ShapeError for a
        bias that does not hold OC values or an empty output."""
        if self.bias is not None and inputs[2].count() != oc:
            raise self.shape_error(f"bias '{self.bias}' shape", f"({oc},)", inputs[2].shape)
        if oh < 1 or ow < 1:
            raise self.shape_error("output size", "positive", (oh, ow))
        x = inputs[0]
        fmt = x.format if not x.format.is_weights else Format.bfyx
        return Layout(x.dtype, fmt, (x.shape[0], oc, oh, ow))


def normalize_window(prim: Any, pairs: tuple[str, ...]) -> None:
    """Turn the (y, x) fields ``pairs`` and ``pad_end`` (None: ``pad``) of a convolution or deconvolution into int
    pairs and check ``groups``; raises TopologyError naming the primitive (stride/dilation >= 1, the others >= 0,
    groups a positive int)."""
    for name in pairs:
        object.__setattr__(prim, name, yx_pair(getattr(prim, name), name, prim.id))
    pad_end = prim.pad if prim.pad_end is None else yx_pair(prim.pad_end, "pad_end", prim.id)
    object.__setattr__(prim, "pad_end", pad_end)
    at_least_one = [v for n in ("stride", "dilation") for v in getattr(prim, n)]
    non_negative = [v for n in pairs + ("pad_end",) for v in getattr(prim, n)]
    if min(at_least_one) < 1 or min(non_negative) < 0:
        shown = " ".join(f"{n}={getattr(prim, n)}" for n in pairs + ("pad_end",))
        raise TopologyError(f"{prim.type_name} '{prim.id}': stride/dilation must be >= 1 and pads >= 0, got {shown}")
    groups = getattr(prim, "groups", 1)
    if not isinstance(groups, int) or groups < 1:
        raise TopologyError(f"{prim.type_name} '{prim.id}': groups must be a positive int, got {groups!r}")


def one_input(prim: Primitive, inputs: list[Layout]) -> Layout:
    """The single input layout of a one-input primitive."""
    if len(inputs) < 1:
        raise prim.shape_error("number of inputs", ">= 1", len(inputs))
    return inputs[0]
