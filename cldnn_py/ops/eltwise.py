"""Eltwise modes and the typed attributes of eltwise (clDNN ``eltwise_params``)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .base import OpAttrs


class EltwiseMode(str, enum.Enum):
    """Folded left to right: sum (optionally with per-input coefficients), sub, prod, div, max, min;
    pow (acc ** in_i, ONNX Pow); prelu (acc >= 0 ? acc : in_i * acc, ONNX PRelu with a broadcast slope);
    equal, not_equal, less, greater, less_equal, greater_equal (1 or 0 in the operands' type); mask (acc where in_i
    is non-zero, else 0), mask_not (0 where in_i is non-zero, else acc): ONNX Where as their sum; fmod (C fmod, the
    dividend's sign) and mod (the divisor's sign, Python %): ONNX Mod."""

    sum = "sum"
    sub = "sub"
    prod = "prod"
    div = "div"
    max = "max"
    min = "min"
    pow = "pow"
    prelu = "prelu"
    equal = "equal"
    not_equal = "not_equal"
    less = "less"
    greater = "greater"
    less_equal = "less_equal"
    greater_equal = "greater_equal"
    mask = "mask"
    mask_not = "mask_not"
    fmod = "fmod"
    mod = "mod"


@dataclass(frozen=True)
class EltwiseAttrs(OpAttrs):
    """in0 ∘ in1 ∘ ... folded left to right with ``mode``; ``coefficients`` (one per input, sum only) or None."""

    mode: EltwiseMode = EltwiseMode.sum
    coefficients: tuple[float, ...] | None = None


@dataclass(frozen=True)
class FusedEltwiseAttrs(OpAttrs):
    """An eltwise folded into a producer's epilogue: ``mode`` is the :class:`EltwiseMode` value (a str); the kernel's
    value is the left operand, the fused op's one extra input the right."""

    mode: str = "sum"
