"""ConvInteger, QLinearConv, MatMulInteger and QLinearMatMul as integer primitives (issue 18): one
:class:`~cldnn_py.primitives.QuantizedConvolution` each, int8 × int8 summed in int32, exact.

When (:data:`INTEGER_PATH` ``"auto"``, the default): only where the float path of ``quantization.py`` cannot be shown
exact. That path sums the centred integer products in float32, exact whenever no partial sum can reach 2^24:
:func:`float_sums_exact` proves it from the weights themselves (the largest Σ|w − w_zp| of an output channel times
the largest |x − x_zp| the input's type allows). It runs on the fast float convolutions (on PoCL 3-6× the integer
kernels' speed), and in onnxruntime's quantized zoo networks it covers 53 of ResNet-50's 53 QLinearConv layers and 50
of 53 ConvInteger layers (dynamic). ``"always"`` takes the integer path wherever it applies (tests, benchmarks).

A MatMul runs as a 1×1 convolution: A (..., M, K) is seen as (rows, K, 1, 1) and B (K, N) becomes the weights
(N, K, 1, 1), so its per-column zero point and scale are per output channel. What this path does not cover falls
back to the float path of ``quantization.py`` (each function returns False, having added nothing): weights or a
weights zero point computed at run time, a per-row A zero point, scales that are not constants (QLinear*), a Conv
that is not 2-D. QLinear* requantize with scale = x_scale·w_scale/y_scale computed in float32, as onnxruntime's
QLinearConv and QLinearMatMul do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import env
from ...layout import DataType
from ...primitives.quantized_convolution import QuantizedConvolution
from .nn_common import ints, reshape_to, resolve_pads

_TYPES = {np.dtype(np.uint8): DataType.u8, np.dtype(np.int8): DataType.i8}
INTEGER_PATH: str | None = None
"""``"auto"``: the integer path where the float path is not provably exact; ``"always"``: wherever it applies, and
QDQ groups rewritten to QLinearConv first (``frontend/onnx_qdq.py``); None (default): ``CLDNN_PY_INTEGER_PATH``, else
``"auto"``. Read by each import (set it before ``load_onnx``)."""


def integer_path() -> str:
    """The policy in force: :data:`INTEGER_PATH`, else ``CLDNN_PY_INTEGER_PATH`` (ValueError for a value other than
    auto / always), else ``"auto"``."""
    return INTEGER_PATH or env.integer_path()
EXACT = 2 ** 24
"""float32 holds every integer of smaller magnitude exactly."""


def float_sums_exact(w_centred: np.ndarray, x_dtype: np.dtype, x_zp: int | None) -> bool:
    """True when a float32 convolution of the centred integers cannot round: ``w_centred`` (OC, K) (w − w_zp, one
    row per output channel) and inputs x of ``x_dtype`` with zero point ``x_zp`` (None: known only at run time, any
    value of the type). Every partial sum is at most max_oc Σ_k |w_centred| · max |x − x_zp| in magnitude."""
    info = np.iinfo(x_dtype)
    x_bound = 255 if x_zp is None else max(x_zp - int(info.min), int(info.max) - x_zp)
    w_bound = int(np.abs(w_centred.astype(np.int64)).sum(axis=1).max(initial=0))
    return w_bound * x_bound < EXACT


def _float_path_suffices(ctx: Any, x: str, w_centred: np.ndarray, x_zp: str | None) -> bool:
    """:func:`float_sums_exact` for input tensor ``x`` and its zero point tensor (constant or run time)."""
    if integer_path() == "always":
        return False
    zp = None
    if x_zp is None:
        zp = 0
    elif ctx.is_const(x_zp):
        zp = int(np.asarray(ctx.const(x_zp)).reshape(-1)[0])
    return float_sums_exact(w_centred, ctx.layout(x).dtype.numpy, zp)


def centred(w: np.ndarray, zp: np.ndarray | None) -> np.ndarray:
    """(OC, K) int64 w − zp of weights (OC, ...) and a per-channel or scalar zero point."""
    wc = w.reshape(w.shape[0], -1).astype(np.int64)
    return wc if zp is None else wc - zp.astype(np.int64).reshape(-1, 1)


def _const_or_none(ctx: Any, name: str | None) -> np.ndarray | None | bool:
    """The constant's value, None when absent, False when it is computed at run time."""
    if name is None:
        return None
    return np.asarray(ctx.const(name)) if ctx.is_const(name) else False


def _data(ctx: Any, base: str, value: np.ndarray) -> str:
    name = ctx.fresh(base)
    ctx.consts[name] = value
    return ctx.ref(name)


def _input_zero_point_size(ctx: Any, name: str | None) -> int:
    """Elements of an input zero point (1 when absent); 0 for one the integer path cannot read (not 8-bit)."""
    if name is None:
        return 1
    if ctx.is_const(name):
        return int(np.asarray(ctx.const(name)).size)
    return int(np.prod(ctx.shape(name))) if ctx.layout(name).dtype in (DataType.u8, DataType.i8) else 0


def _input_zero_point(ctx: Any, name: str | None, base: str) -> str | None:
    """Primitive id of a one-element input zero point (constant or run time; checked by
    :func:`_input_zero_point_size`), None when absent or a constant zero."""
    if name is None:
        return None
    if ctx.is_const(name):
        v = np.asarray(ctx.const(name))
        return None if int(v.reshape(-1)[0]) == 0 else _data(ctx, base, v.reshape(1))
    return ctx.ref(name)  # any shape of one element: the primitive reads element 0


def _weights_zero_point(ctx: Any, name: str | None, channels: int) -> np.ndarray | None | bool:
    """A constant weights zero point of 1 or ``channels`` values (1-D); None when absent or all zero; False when
    computed at run time or of another size."""
    v = _const_or_none(ctx, name)
    if v is None:
        return None
    if v is False or v.size not in (1, channels):  # type: ignore[union-attr]
        return False
    v = np.asarray(v).reshape(-1)
    return v if v.any() else None


def _optional_data(ctx: Any, base: str, value: np.ndarray | None) -> str | None:
    return None if value is None else _data(ctx, base, value)


def _requant_scale(ctx: Any, xs: str, ws: str, ys: str, channels: int) -> np.ndarray | None:
    """The float32 scale x_scale·w_scale/y_scale (1 or ``channels`` values) when the three are constants with one
    x and y scale and 1 or ``channels`` w scales; None otherwise."""
    v = [_const_or_none(ctx, n) for n in (xs, ws, ys)]
    if any(s is None or s is False for s in v):
        return None
    x, w, y = (np.asarray(s, np.float32).reshape(-1) for s in v)
    if x.size != 1 or y.size != 1 or w.size not in (1, channels):
        return None
    return (x[0] * w) / y[0]


def _output_zero_point(ctx: Any, name: str | None) -> tuple[DataType, int] | None:
    """(u8 or i8, zero point) of a constant one-element y zero point (absent: uint8, 0); None otherwise."""
    v = _const_or_none(ctx, name)
    if v is None:
        return DataType.u8, 0
    if v is False or v.size != 1 or v.dtype not in _TYPES:  # type: ignore[union-attr]
        return None
    return _TYPES[v.dtype], int(v.reshape(-1)[0])  # type: ignore[union-attr]


def _weights(ctx: Any, name: str) -> np.ndarray | None:
    """A constant 8-bit weight tensor, or None."""
    if not ctx.is_const(name):
        return None
    w = np.asarray(ctx.const(name))
    return w if w.dtype in _TYPES else None


def integer_conv(ctx: Any, node: Any, x: str, w_name: str, x_zp: str | None, w_zp: str | None,
                 bias: str | None = None, requant: tuple[str, str, str, str | None] | None = None) -> bool:
    """A 2-D ConvInteger (``requant`` None: int32 output) or QLinearConv (``requant`` = (x_scale, w_scale, y_scale,
    y_zero_point)) as one QuantizedConvolution named ``node.output[0]``; False when not covered (nothing added)."""
    w = _weights(ctx, w_name)
    shape = ctx.shape(x)
    if w is None or w.ndim != 4 or len(shape) != 4 or ctx.layout(x).dtype not in (DataType.u8, DataType.i8):
        return False
    oc = w.shape[0]
    out_dtype, y_zp, scale = DataType.i32, 0, None
    if requant is not None:
        rs = _requant_scale(ctx, requant[0], requant[1], requant[2], oc)
        oz = _output_zero_point(ctx, requant[3])
        b = _const_or_none(ctx, bias)
        if rs is None or oz is None or b is False:
            return False
        scale, (out_dtype, y_zp) = rs, oz
    wz = _weights_zero_point(ctx, w_zp, oc)
    if not isinstance(wz, np.ndarray) and wz is not None:
        return False
    if _input_zero_point_size(ctx, x_zp) != 1 or _float_path_suffices(ctx, x, centred(w, wz), x_zp):
        return False
    xz = _input_zero_point(ctx, x_zp, node.output[0] + "_xzp")
    a = ctx.attrs(node)
    k = list(w.shape[2:])
    strides, dil = ints(a, "strides", 2, 1), ints(a, "dilations", 2, 1)
    pb, pe = resolve_pads(node, a, list(shape[2:]), [(ki - 1) * d + 1 for ki, d in zip(k, dil)], strides)
    base = node.output[0]
    ctx.add(QuantizedConvolution(
        base, ctx.ref(x), _data(ctx, base + "_w", w), bias=ctx.ref(bias) if bias else None,
        input_zero_point=xz, weights_zero_point=_optional_data(ctx, base + "_wzp", wz),
        output_scale=_optional_data(ctx, base + "_scale", scale),
        output_dtype=out_dtype, output_zero_point=y_zp, stride=tuple(strides), dilation=tuple(dil),
        pad=tuple(pb), pad_end=tuple(pe), groups=int(a.get("group", 1))))
    return True


def integer_matmul(ctx: Any, node: Any, a: str, b: str, a_zp: str | None, b_zp: str | None,
                   requant: tuple[str, str, str, str | None] | None = None) -> bool:
    """MatMulInteger (``requant`` None) or QLinearMatMul (``requant`` = (a_scale, b_scale, y_scale, y_zero_point))
    of A (..., M, K) and a constant B (K, N) as a 1×1 QuantizedConvolution between two Reshapes; False when not
    covered (nothing added)."""
    w = _weights(ctx, b)
    shape = ctx.shape(a)
    if w is None or w.ndim != 2 or len(shape) < 2 or shape[-1] != w.shape[0] or \
            ctx.layout(a).dtype not in (DataType.u8, DataType.i8):
        return False
    n = w.shape[1]
    out_dtype, y_zp, scale = DataType.i32, 0, None
    if requant is not None:
        rs = _requant_scale(ctx, requant[0], requant[1], requant[2], n)
        oz = _output_zero_point(ctx, requant[3])
        if rs is None or oz is None:
            return False
        scale, (out_dtype, y_zp) = rs, oz
    base = node.output[0]
    wz = _weights_zero_point(ctx, b_zp, n)
    if not isinstance(wz, np.ndarray) and wz is not None:
        return False
    if _input_zero_point_size(ctx, a_zp) != 1 or _float_path_suffices(ctx, a, centred(w.T, wz), a_zp):
        return False
    xz = _input_zero_point(ctx, a_zp, base + "_azp")
    rows = int(np.prod(shape[:-1]))
    x4 = reshape_to(ctx, node, a, (rows, shape[-1], 1, 1))
    weights = _data(ctx, base + "_w", np.ascontiguousarray(w.T).reshape(n, w.shape[0], 1, 1))
    y = ctx.add(QuantizedConvolution(
        ctx.fresh(base + "_conv"), x4, weights, input_zero_point=xz,
        weights_zero_point=_optional_data(ctx, base + "_bzp", wz),
        output_scale=_optional_data(ctx, base + "_scale", scale),
        output_dtype=out_dtype, output_zero_point=y_zp))
    reshape_to(ctx, node, y, tuple(shape[:-1]) + (n,), out_id=base)
    return True

