"""Reductions: ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd → Reduce; ArgMax, ArgMin → ArgMax (i32 indices).

Axes come from the ``axes`` attribute (ReduceX before opset 18, ReduceSum before 13) or from the optional second
input (ReduceSum 13+, the others 18+), which must be a constant here (the backend binds integer graph inputs as
constants when a model needs that). Empty or absent axes mean every axis, unless ``noop_with_empty_axes`` is
set, in which case the node is the identity. A reduction to rank 0 (keepdims=0 over every axis) is stored with
shape (1,).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import UnsupportedError
from ...layout import DataType
from ...primitives.arg_max import ArgMax
from ...primitives.reduce import Reduce
from ...primitives.reorder import Reorder
from . import converter


def _axes(ctx: Any, node: Any, attrs: dict[str, Any]) -> tuple[int, ...] | None:
    """The node's axes (attribute or constant second input), or None when none are given / the list is empty."""
    if "axes" in attrs:
        axes = list(attrs["axes"])
    elif len(node.input) > 1 and node.input[1]:
        axes = [int(a) for a in np.asarray(ctx.const(node.input[1])).reshape(-1)]
    else:
        axes = []
    return tuple(int(a) for a in axes) or None


def reduce_axes(ctx: Any, node: Any) -> tuple[tuple[int, ...] | None, bool, bool]:
    """(axes, keepdims, noop) of a ReduceX node: ``axes`` None means every axis; ``noop`` is True when
    ``noop_with_empty_axes`` is set and no axes are given (the reduction over no axis). Raises UnsupportedError
    naming the node for an axis out of range. Shared with the composed reductions (reduce_composed.py)."""
    a = ctx.attrs(node)
    axes = _axes(ctx, node, a)
    noop = axes is None and bool(a.get("noop_with_empty_axes", 0))
    rank = len(ctx.shape(node.input[0]))
    if axes is not None and any(not -rank <= ax < rank for ax in axes):
        raise UnsupportedError(f"{node.op_type} '{node.name}': axes {axes} out of range for rank {rank}")
    return axes, bool(a.get("keepdims", 1)), noop


def _reduce(ctx: Any, node: Any, mode: str) -> None:
    """One ReduceX node → Reduce(mode), or an alias of the input for noop_with_empty_axes with no axes."""
    axes, keep, noop = reduce_axes(ctx, node)
    if noop:
        ctx.alias(node.output[0], node.input[0])
        return
    src = ctx.ref(node.input[0])
    lay = ctx.layouts[src]
    if lay.dtype == DataType.u8 and mode in ("max", "min"):  # bool (0/1): exact in float, and back to bool
        src = ctx.add(Reorder(ctx.fresh(node.output[0] + "_f32"), src, format=lay.format, dtype=DataType.f32))
        red = ctx.add(Reduce(ctx.fresh(node.output[0] + "_red"), src, mode=mode, axes=axes or (), keep_dims=keep))
        ctx.add(Reorder(node.output[0], red, format=ctx.layouts[red].format, dtype=DataType.u8, convert_mode="bool"))
        return
    ctx.add(Reduce(node.output[0], src, mode=mode, axes=axes or (), keep_dims=keep))


@converter("ReduceMean", versions=(1, 11, 13, 18))
def reduce_mean(ctx: Any, node: Any) -> None:
    """ReduceMean → Reduce mean."""
    _reduce(ctx, node, "mean")


@converter("ReduceSum", versions=(1, 11, 13))
def reduce_sum(ctx: Any, node: Any) -> None:
    """ReduceSum → Reduce sum."""
    _reduce(ctx, node, "sum")


@converter("ReduceProd", versions=(1, 11, 13, 18))
def reduce_prod(ctx: Any, node: Any) -> None:
    """ReduceProd → Reduce prod (float32 products, as every Reduce mode)."""
    _reduce(ctx, node, "prod")


@converter("ReduceMax", versions=(1, 11, 12, 13, 18, 20))
def reduce_max(ctx: Any, node: Any) -> None:
    """ReduceMax → Reduce max."""
    _reduce(ctx, node, "max")


@converter("ReduceMin", versions=(1, 11, 12, 13, 18, 20))
def reduce_min(ctx: Any, node: Any) -> None:
    """ReduceMin → Reduce min."""
    _reduce(ctx, node, "min")


@converter("ArgMax", versions=(1, 11, 12, 13))
def arg_max(ctx: Any, node: Any) -> None:
    """ArgMax (axis, keepdims, select_last_index) → ArgMax; the int64 result is stored as i32."""
    a = ctx.attrs(node)
    ctx.add(ArgMax(node.output[0], ctx.ref(node.input[0]), axis=int(a.get("axis", 0)),
                   keep_dims=bool(a.get("keepdims", 1)), select_last_index=bool(a.get("select_last_index", 0))))


@converter("ArgMin", versions=(1, 11, 12, 13))
def arg_min(ctx: Any, node: Any) -> None:
    """ArgMin (axis, keepdims, select_last_index) → ArgMax in ``min`` mode (ties: first index, or the last with
    select_last_index, as ONNX); the int64 result is stored as i32."""
    a = ctx.attrs(node)
    ctx.add(ArgMax(node.output[0], ctx.ref(node.input[0]), axis=int(a.get("axis", 0)), mode="min",
                   keep_dims=bool(a.get("keepdims", 1)), select_last_index=bool(a.get("select_last_index", 0))))
