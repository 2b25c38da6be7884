"""Reductions composed of Reduce and element-wise Activations (ONNX operator spec formulas):

- ReduceL1 = sum(|x|); ReduceL2 = sqrt(sum(x²)); ReduceSumSquare = sum(x²); ReduceLogSum = log(sum(x));
- ReduceLogSumExp = log(sum(exp(x − m))) + m with m = max(x) over the same axes (kept dims), so that large inputs
  do not overflow; a rank-5/6 input is first transposed so the reduced axes come last and viewed as
  (outer, inner) (Eltwise broadcasts per dimension only up to rank 4).

Axes, ``keepdims`` and ``noop_with_empty_axes`` as the other reductions (:func:`reduce.reduce_axes`): axes as the
attribute (before opset 18) or a constant second input (18+); none means every axis. With
``noop_with_empty_axes`` and no axes the reduction is over no axis: only the element-wise maps are applied (|x|,
sqrt(x²), x², log(x), and x itself for LogSumExp), as the ONNX reference and onnxruntime do. Float32 only
(UnsupportedError for other input types: the integer forms of L1/L2/SumSquare are not supported). ReduceProd is
not composed (no product mode in Reduce, and exp(sum(log|x|)) is not exact).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...primitives.activation import Activation
from ...primitives.eltwise import Eltwise, EltwiseMode
from ...primitives.reduce import Reduce
from . import converter
from .elementwise_common import require_f32
from .movement import permute_to, reshape_to
from .reduce import reduce_axes

# op type → (element-wise map before the sum, map after it)
_FORMS: dict[str, tuple[str | None, str | None]] = {
    "ReduceL1": ("abs", None),
    "ReduceL2": ("square", "sqrt"),
    "ReduceSumSquare": ("square", None),
    "ReduceLogSum": (None, "log"),
}


def _act(ctx: Any, out: str, src: str, func: str) -> str:
    return str(ctx.add(Activation(out, src, func=func)))


@converter("ReduceL1", "ReduceL2", "ReduceSumSquare", versions=(1, 11, 13, 18))
@converter("ReduceLogSum", versions=(1, 11, 13, 18, 28))
def reduce_sum_composed(ctx: Any, node: Any) -> None:
    """ReduceL1/L2/SumSquare/LogSum → [Activation] → Reduce sum → [Activation]."""
    pre, post = _FORMS[node.op_type]
    axes, keep, noop = reduce_axes(ctx, node)  # first: a run-time axes input makes the import dynamic
    require_f32(ctx, node, node.input[0])
    steps = ([pre] if pre else []) + ([] if noop else ["sum"]) + ([post] if post else [])  # never empty
    out = node.output[0]
    src = ctx.ref(node.input[0])
    for i, step in enumerate(steps):
        pid = out if i == len(steps) - 1 else ctx.fresh(f"{out}_{step}")
        if step == "sum":
            src = ctx.add(Reduce(pid, src, mode="sum", axes=axes or (), keep_dims=keep))
        else:
            src = _act(ctx, pid, src, step)


@converter("ReduceLogSumExp", versions=(1, 11, 13, 18, 28))
def reduce_log_sum_exp(ctx: Any, node: Any) -> None:
    """ReduceLogSumExp → m = Reduce max (kept dims); Reduce sum of exp(x − m); log(·) + m; Reshape to the result
    shape when keepdims is 0."""
    axes, keep, noop = reduce_axes(ctx, node)
    require_f32(ctx, node, node.input[0])
    out = node.output[0]
    if noop:  # log(exp(x)) = x
        ctx.alias(out, node.input[0])
        return
    shape = ctx.shape(node.input[0])
    rank = len(shape)
    red = sorted({a % rank for a in axes}) if axes else list(range(rank))
    kept = [d for d in range(rank) if d not in red]
    out_shape = tuple(1 if d in red else s for d, s in enumerate(shape)) if keep else tuple(shape[d] for d in kept)
    src = node.input[0]
    work_axes: tuple[int, ...] = tuple(red)
    if rank > 4:  # reduced axes last, then a (outer, inner) view
        if red != list(range(rank - len(red), rank)):
            t = ctx.fresh(out + "_axes_last")
            permute_to(ctx, t, src, tuple(kept + red), node)
            src = t
        v = ctx.fresh(out + "_2d")
        reshape_to(ctx, v, src, (int(np.prod([shape[d] for d in kept] or [1])),
                                 int(np.prod([shape[d] for d in red]))), node)
        src, work_axes = v, (1,)
    x = ctx.ref(src)
    m = ctx.add(Reduce(ctx.fresh(out + "_max"), x, mode="max", axes=work_axes, keep_dims=True))
    d = ctx.add(Eltwise(ctx.fresh(out + "_sub"), [x, m], mode=EltwiseMode.sub))
    e = _act(ctx, ctx.fresh(out + "_exp"), d, "exp")
    s = ctx.add(Reduce(ctx.fresh(out + "_sum"), e, mode="sum", axes=work_axes, keep_dims=True))
    lg = _act(ctx, ctx.fresh(out + "_log"), s, "log")
    direct = ctx.shape(m) == (out_shape or (1,))
    r = ctx.add(Eltwise(out if direct else ctx.fresh(out + "_lse"), [lg, m], mode=EltwiseMode.sum))
    if not direct:
        reshape_to(ctx, out, r, out_shape, node)
