"""Element-wise binary and variadic operators → Eltwise: Add, Sub, Mul, Div, Pow, Mod, Max, Min, Sum, Mean.

Opset 7+ broadcasting is numpy's (multidirectional), which Eltwise implements directly. Versions 1 and 6 of
Add/Sub/Mul/Div and version 1 of Pow have the legacy ``broadcast``/``axis`` attributes: B's shape is a contiguous
run of A's shape starting at ``axis`` (suffix matching without it), handled by reshaping B so numpy rules apply.
Max/Min/Sum/Mean before version 8 need equal shapes, a special case of the later numpy broadcasting. Float32 and
int32-stored integer tensors are supported (integer math is exact, Div truncates); Pow takes an exponent of any
supported type (ONNX T1) and keeps the base's type. Mod: ``fmod=1`` is C's fmod (the dividend's sign; floats and
integers), ``fmod=0`` the remainder with the divisor's sign (Python's %; floats from Mod-28 on).
"""

from __future__ import annotations

from typing import Any

from ...primitives.activation import Activation
from ...primitives.eltwise import Eltwise, EltwiseMode
from ...primitives.reshape import Reshape
from . import converter
from .elementwise_common import attr, since_version

_BINARY = {"Add": EltwiseMode.sum, "Sub": EltwiseMode.sub, "Mul": EltwiseMode.prod, "Div": EltwiseMode.div,
           "Pow": EltwiseMode.pow}


def legacy_broadcast_operand(ctx: Any, node: Any) -> str:
    """Primitive id of input B of a version-1/6 binary op, reshaped so numpy broadcasting gives the legacy
    ``broadcast=1, axis=k`` alignment (B's dimensions start at A's dimension k: trailing 1s are appended)."""
    b = ctx.ref(node.input[1])
    axis = attr(ctx, node, "axis")
    if not attr(ctx, node, "broadcast") or axis is None:
        return b  # equal shapes, or suffix matching: numpy rules already
    rank_a = len(ctx.shape(node.input[0]))
    shape_b = ctx.shape(node.input[1])
    axis = axis + rank_a if axis < 0 else axis
    trailing = rank_a - axis - len(shape_b)
    if trailing <= 0:
        return b
    new_shape = tuple(shape_b) + (1,) * trailing
    if ctx.is_const(node.input[1]):
        name = ctx.fresh(node.input[1])
        ctx.consts[name] = ctx.const(node.input[1]).reshape(new_shape)
        return ctx.ref(name)
    return ctx.add(Reshape(ctx.fresh(node.output[0] + "_b"), b, shape=new_shape))


@converter("Add", "Sub", "Mul", "Div", versions=(1, 6, 7, 13, 14))
def binary(ctx: Any, node: Any) -> None:
    """Add/Sub/Mul/Div → Eltwise sum/sub/prod/div with numpy broadcasting (legacy broadcast for versions 1, 6)."""
    a = ctx.ref(node.input[0])
    b = legacy_broadcast_operand(ctx, node) if since_version(ctx, node) < 7 else ctx.ref(node.input[1])
    ctx.add(Eltwise(node.output[0], [a, b], mode=_BINARY[node.op_type]))


@converter("Pow", versions=(1, 7, 12, 13, 15))
def pow_(ctx: Any, node: Any) -> None:
    """Pow → Eltwise pow (the exponent may be of another data type; the output has the base's).

    A constant exponent of exactly 2 on a float base becomes Activation square (exact, no ``pow`` call).
    """
    a = ctx.ref(node.input[0])
    y = node.input[1]
    if ctx.is_const(y) and ctx.const(y).size == 1 and float(ctx.const(y).reshape(-1)[0]) == 2.0 \
            and ctx.layout(node.input[0]).dtype.numpy.kind == "f" \
            and len(ctx.shape(y)) <= len(ctx.shape(node.input[0])):
        ctx.add(Activation(node.output[0], a, "square"))
        return
    b = legacy_broadcast_operand(ctx, node) if since_version(ctx, node) < 7 else ctx.ref(y)
    ctx.add(Eltwise(node.output[0], [a, b], mode=EltwiseMode.pow))


def _variadic(ctx: Any, node: Any, mode: EltwiseMode, coefficients: list[float] | None = None) -> None:
    ins = [i for i in node.input if i]
    if len(ins) == 1:
        ctx.alias(node.output[0], ins[0])
        return
    ctx.add(Eltwise(node.output[0], [ctx.ref(i) for i in ins], mode=mode, coefficients=coefficients))


@converter("Max", "Min", versions=(1, 6, 8, 12, 13))
def max_min(ctx: Any, node: Any) -> None:
    """Max/Min of 1..N inputs → Eltwise max/min (one input: the input itself)."""
    _variadic(ctx, node, EltwiseMode.max if node.op_type == "Max" else EltwiseMode.min)


@converter("Sum", versions=(1, 6, 8, 13))
def sum_(ctx: Any, node: Any) -> None:
    """Sum of 1..N inputs → Eltwise sum (one input: the input itself)."""
    _variadic(ctx, node, EltwiseMode.sum)


@converter("Mean", versions=(1, 6, 8, 13))
def mean(ctx: Any, node: Any) -> None:
    """Mean of 1..N inputs → Eltwise sum with every coefficient 1/N (one input: the input itself)."""
    n = len([i for i in node.input if i])
    _variadic(ctx, node, EltwiseMode.sum, [1.0 / n] * n)


@converter("Mod", versions=(10, 13, 28))
def mod(ctx: Any, node: Any) -> None:
    """Mod → Eltwise fmod (``fmod=1``: the dividend's sign) or mod (``fmod=0``: the divisor's sign, with Mod-28's
    float special cases, Python's float %), numpy broadcasting."""
    a, b = ctx.ref(node.input[0]), ctx.ref(node.input[1])
    fmod = bool(ctx.attrs(node).get("fmod", 0))
    ctx.add(Eltwise(node.output[0], [a, b], mode=EltwiseMode.fmod if fmod else EltwiseMode.mod))
