"""Element-wise activations and unary math → Activation (Eltwise where a tensor parameter or integers need it).

Relu, LeakyRelu, PRelu, Sigmoid, Tanh, Clip, Elu, Selu, HardSigmoid, HardSwish, Softplus, Erf, Gelu, Exp, Log,
Sqrt, Abs, Neg, Reciprocal, Floor, Ceil, Round, Sign. Attributes missing from a node take the default of the schema
of the model's opset.
Float32 inputs map to one Activation; int32-stored integer inputs of Relu, Abs, Neg and Clip (the integer types
ONNX allows there) map to exact integer Eltwise max/min/sub. PRelu with a slope tensor of more than one element
and Clip with run-time min/max map to Eltwise (prelu; max then min) with numpy broadcasting.
"""

from __future__ import annotations

import math
from typing import Any

from ...errors import UnsupportedError
from ...layout import DataType
from ...primitives.activation import Activation
from ...primitives.eltwise import Eltwise, EltwiseMode
from . import converter
from .elementwise_common import attr, require_f32, scalar, since_version

# op type -> (activation function, attribute giving a, attribute giving b)
_SIMPLE: dict[str, tuple[str, str | None, str | None]] = {
    "Sigmoid": ("logistic", None, None),
    "Tanh": ("tanh", None, None),
    "Elu": ("elu", "alpha", None),
    "Selu": ("selu", "alpha", "gamma"),
    "HardSigmoid": ("hard_sigmoid", "alpha", "beta"),
    "HardSwish": ("hard_swish", None, None),
    "Softplus": ("softplus", None, None),
    "Erf": ("erf", None, None),
    "Exp": ("exp", None, None),
    "Log": ("log", None, None),
    "Sqrt": ("sqrt", None, None),
    "Reciprocal": ("reciprocal", None, None),
    "LeakyRelu": ("relu_negative_slope", "alpha", None),
    "Floor": ("floor", None, None),
    "Ceil": ("ceil", None, None),
    "Round": ("round", None, None),
    "Sign": ("sign", None, None),
}


def _is_int(ctx: Any, name: str) -> bool:
    return ctx.layout(name).dtype == DataType.i32


@converter("Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal", versions=(1, 6, 13))
@converter("Elu", "Selu", "HardSigmoid", versions=(1, 6, 22))
@converter("LeakyRelu", versions=(1, 6, 16))
@converter("Softplus", versions=(1, 22))
@converter("HardSwish", versions=(14, 22))
@converter("Erf", versions=(9, 13))
@converter("Floor", "Ceil", versions=(1, 6, 13))
@converter("Round", versions=(11, 22))
@converter("Sign", versions=(9, 13))
def simple(ctx: Any, node: Any) -> None:
    """A float32 activation with its attributes as a/b (Elu alpha; Selu alpha, gamma; HardSigmoid alpha, beta;
    LeakyRelu alpha)."""
    func, pa, pb = _SIMPLE[node.op_type]
    require_f32(ctx, node, node.input[0])
    a = attr(ctx, node, pa) if pa else None
    b = attr(ctx, node, pb) if pb else None
    ctx.add(Activation(node.output[0], ctx.ref(node.input[0]), func, a=a, b=b))


@converter("Relu", versions=(1, 6, 13, 14))
def relu(ctx: Any, node: Any) -> None:
    """Relu → activation relu; integers: Eltwise max(x, 0)."""
    x = node.input[0]
    if _is_int(ctx, x):
        zero = scalar(ctx, node.output[0] + "_zero", 0, DataType.i32)
        ctx.add(Eltwise(node.output[0], [ctx.ref(x), zero], mode=EltwiseMode.max))
        return
    require_f32(ctx, node, x)
    ctx.add(Activation(node.output[0], ctx.ref(x), "relu"))


@converter("Neg", "Abs", versions=(1, 6, 13))
def neg_abs(ctx: Any, node: Any) -> None:
    """Neg/Abs → activation neg/abs; integers: Eltwise 0 - x (Abs: then max(x, -x))."""
    x = node.input[0]
    if _is_int(ctx, x):
        zero = scalar(ctx, node.output[0] + "_zero", 0, DataType.i32)
        if node.op_type == "Neg":
            ctx.add(Eltwise(node.output[0], [zero, ctx.ref(x)], mode=EltwiseMode.sub))
            return
        neg = ctx.add(Eltwise(ctx.fresh(node.output[0] + "_neg"), [zero, ctx.ref(x)], mode=EltwiseMode.sub))
        ctx.add(Eltwise(node.output[0], [ctx.ref(x), neg], mode=EltwiseMode.max))
        return
    require_f32(ctx, node, x)
    ctx.add(Activation(node.output[0], ctx.ref(x), node.op_type.lower()))


@converter("Gelu", versions=(20,))
def gelu(ctx: Any, node: Any) -> None:
    """Gelu → activation gelu (approximate="none") or gelu_tanh (approximate="tanh")."""
    approx = attr(ctx, node, "approximate") or "none"
    funcs = {"none": "gelu", "tanh": "gelu_tanh"}
    if approx not in funcs:
        raise UnsupportedError(f"Gelu '{node.name}': approximate={approx!r}: expected 'none' or 'tanh'")
    require_f32(ctx, node, node.input[0])
    ctx.add(Activation(node.output[0], ctx.ref(node.input[0]), funcs[approx]))


@converter("PRelu", versions=(7, 9, 16))
def prelu(ctx: Any, node: Any) -> None:
    """PRelu → activation relu_negative_slope for a one-element constant slope, else Eltwise prelu (the slope
    broadcasts to X: unidirectional numpy broadcasting)."""
    x, slope = node.input[0], node.input[1]
    if ctx.is_const(slope) and ctx.const(slope).size == 1 and not _is_int(ctx, x) \
            and len(ctx.shape(slope)) <= len(ctx.shape(x)):
        require_f32(ctx, node, x)
        ctx.add(Activation(node.output[0], ctx.ref(x), "relu_negative_slope",
                           a=float(ctx.const(slope).reshape(-1)[0])))
        return
    ctx.add(Eltwise(node.output[0], [ctx.ref(x), ctx.ref(slope)], mode=EltwiseMode.prelu))
    if ctx.shape(node.output[0]) != ctx.shape(x):
        raise UnsupportedError(f"PRelu '{node.name}': slope shape {ctx.shape(slope)} does not broadcast "
                               f"unidirectionally to X {ctx.shape(x)}")


def _clip_bounds(ctx: Any, node: Any) -> tuple[Any, Any]:
    """(min, max): a float constant, a tensor name (run-time bound) or None (missing)."""
    if since_version(ctx, node) < 11:
        return attr(ctx, node, "min"), attr(ctx, node, "max")
    out: list[Any] = []
    for i in (1, 2):
        name = node.input[i] if len(node.input) > i else ""
        if not name:
            out.append(None)
        elif ctx.is_const(name):
            out.append(ctx.const(name).reshape(-1)[0].item())
        else:
            out.append(name)
    return out[0], out[1]


@converter("Clip", versions=(1, 6, 11, 12, 13))
def clip(ctx: Any, node: Any) -> None:
    """Clip → activation clamp for constant bounds (a missing bound is ±inf); run-time bounds or integer inputs:
    Eltwise max(x, min) then min(., max), which also gives ``max`` everywhere when min > max (ONNX 13)."""
    x = node.input[0]
    lo, hi = _clip_bounds(ctx, node)
    is_int = _is_int(ctx, x)
    if not is_int and not isinstance(lo, str) and not isinstance(hi, str):
        require_f32(ctx, node, x)
        a = -math.inf if lo is None else float(lo)
        b = math.inf if hi is None else float(hi)
        ctx.add(Activation(node.output[0], ctx.ref(x), "clamp", a=a, b=b))
        return
    dtype = ctx.layout(x).dtype
    steps = [(bound, mode) for bound, mode in ((lo, EltwiseMode.max), (hi, EltwiseMode.min)) if bound is not None]
    cur = ctx.ref(x)
    if not steps:
        ctx.alias(node.output[0], x)
        return
    for k, (bound, mode) in enumerate(steps):
        ref = ctx.ref(bound) if isinstance(bound, str) else scalar(ctx, node.output[0] + "_bound", bound, dtype)
        pid = node.output[0] if k == len(steps) - 1 else ctx.fresh(node.output[0] + "_lo")
        cur = ctx.add(Eltwise(pid, [cur, ref], mode=mode))
