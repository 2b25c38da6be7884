"""Comparisons, logic and select → Eltwise comparison and select modes and a bool reorder: Equal, Less, Greater,
LessOrEqual, GreaterOrEqual, Not, And, Or, Xor, Where.

A comparison of float32 or int32-stored integers is one Eltwise (``equal``, ``less`` ... with numpy broadcasting:
1 or 0 in the operands' type) followed by a Reorder to bool (u8, ``convert_mode="bool"``). bool operands (u8) are
widened to int32 first; Not is ``x == 0``, And is ``a * b``, Or ``max(a, b)``, Xor ``a != b`` on 0/1 values. The
legacy ``broadcast``/``axis`` attributes of the version-1 operators are not supported (version 7 on is numpy
broadcasting). Where(c, x, y) is ``mask(x, c) + mask_not(y, c)``: two selects whose unselected operand never enters
the arithmetic (an Inf or a NaN on the other side does not leak), and a sum with an exact zero; the condition is
cast to x's type first (a constant one at import). Semantics: ONNX's operator definitions (comparisons of NaN are
false, NaN != NaN is true).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...layout import DataType
from ...primitives.eltwise import Eltwise, EltwiseMode
from ...primitives.reorder import Reorder
from . import converter
from .elementwise_common import scalar

_COMPARE = {"Equal": EltwiseMode.equal, "Less": EltwiseMode.less, "Greater": EltwiseMode.greater,
            "LessOrEqual": EltwiseMode.less_equal, "GreaterOrEqual": EltwiseMode.greater_equal}
_LOGIC = {"And": EltwiseMode.prod, "Or": EltwiseMode.max, "Xor": EltwiseMode.not_equal}


def _operand(ctx: Any, node: Any, name: str) -> str:
    """The primitive holding tensor ``name``, widened from bool (u8) to int32 for the Eltwise kernels."""
    lay = ctx.layout(name)
    if lay.dtype != DataType.u8:
        return str(ctx.ref(name))
    return str(ctx.add(Reorder(ctx.fresh(node.output[0] + "_i32"), ctx.ref(name), format=lay.format,
                               dtype=DataType.i32)))


def _to_bool(ctx: Any, node: Any, a: str, b: str, mode: EltwiseMode) -> None:
    cmp = ctx.add(Eltwise(ctx.fresh(node.output[0] + "_cmp"), [a, b], mode=mode))
    ctx.add(Reorder(node.output[0], cmp, format=ctx.layouts[cmp].format, dtype=DataType.u8, convert_mode="bool"))


@converter("Equal", versions=(7, 11, 13, 19))
@converter("Less", "Greater", versions=(7, 9, 13))
@converter("LessOrEqual", "GreaterOrEqual", versions=(12, 16))
def compare(ctx: Any, node: Any) -> None:
    """A comparison → Eltwise (1/0) → bool; operands of one type (float32, integers, or bool for Equal)."""
    a, b = (_operand(ctx, node, i) for i in node.input[:2])
    _to_bool(ctx, node, a, b, _COMPARE[node.op_type])


@converter("And", "Or", "Xor", versions=(7,))
def logic(ctx: Any, node: Any) -> None:
    """And/Or/Xor of bool tensors with numpy broadcasting."""
    a, b = (_operand(ctx, node, i) for i in node.input[:2])
    _to_bool(ctx, node, a, b, _LOGIC[node.op_type])


@converter("Not", versions=(1,))
def not_(ctx: Any, node: Any) -> None:
    """Not x → (x == 0) as bool."""
    x = _operand(ctx, node, node.input[0])
    zero = scalar(ctx, node.output[0] + "_zero", 0, ctx.layouts[x].dtype)
    _to_bool(ctx, node, x, zero, EltwiseMode.equal)


@converter("Where", versions=(9, 16))
def where(ctx: Any, node: Any) -> None:
    """Where(condition, X, Y) with three-way numpy broadcasting → Eltwise mask / mask_not / sum (bool X, Y: on
    int32, then a bool reorder). Output: the broadcast shape, X's type."""
    c, x, y = node.input[:3]
    is_bool = ctx.layout(x).dtype == DataType.u8
    xs, ys = _operand(ctx, node, x), _operand(ctx, node, y)
    dt = ctx.layouts[xs].dtype
    if ctx.is_const(c):
        name = ctx.fresh(node.output[0] + "_cond")
        ctx.consts[name] = np.asarray(ctx.const(c)).astype(dt.numpy)
        cs = str(ctx.ref(name))
    else:
        cs = str(ctx.add(Reorder(ctx.fresh(node.output[0] + "_cond"), ctx.ref(c), format=ctx.layout(c).format,
                                 dtype=dt)))
    tx = ctx.add(Eltwise(ctx.fresh(node.output[0] + "_x"), [xs, cs], mode=EltwiseMode.mask))
    ty = ctx.add(Eltwise(ctx.fresh(node.output[0] + "_y"), [ys, cs], mode=EltwiseMode.mask_not))
    if not is_bool:
        ctx.add(Eltwise(node.output[0], [tx, ty], mode=EltwiseMode.sum))
        return
    s = ctx.add(Eltwise(ctx.fresh(node.output[0] + "_sum"), [tx, ty], mode=EltwiseMode.sum))
    ctx.add(Reorder(node.output[0], s, format=ctx.layouts[s].format, dtype=DataType.u8, convert_mode="bool"))
