"""Linear quantization → float primitives: QuantizeLinear, DequantizeLinear, QLinearConv, QLinearMatMul,
ConvInteger, MatMulInteger, DynamicQuantizeLinear (issue 18, the reference path).

Every quantized operator is expressed on float32 values, exactly as ONNX defines it (onnx.ai/onnx/operators): a
quantized tensor is stored as int8/uint8 between a QuantizeLinear and its DequantizeLinear; dequantization is a
cast, a subtraction of the zero point and a product with the scale (per tensor or per axis); quantization divides
by the scale, rounds half to even, adds the zero point and saturates to the type (Reorder's ``round`` conversion).
QLinearConv / QLinearMatMul dequantize their operands (constant weights are dequantized at import), run the float
Conv / MatMul converters, and quantize the result; ConvInteger / MatMulInteger subtract the zero points and return
int32 (float32 accumulation is exact while partial sums stay below 2^24 in magnitude). Scales and zero points must
be constants, except DynamicQuantizeLinear's, which it computes (a min/max Reduce of its input). Weights that are
constant int8 with their DequantizeLinear fold at import (``onnx_quant_fold``), so QDQ models import as float
networks with Quantize/Dequantize pairs on the activations.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx import helper

from ...errors import UnsupportedError
from ...layout import DataType, Format
from ...primitives.activation import Activation
from ...primitives.eltwise import Eltwise, EltwiseMode
from ...primitives.reduce import Reduce
from ...primitives.reorder import Reorder
from ...primitives.reshape import Reshape
from ..onnx_quant_fold import QUANT_TYPES, dequantize, per_axis
from . import CONVERTERS, converter
from .nn_common import optional_input
from .quantization_integer import integer_conv, integer_matmul

_QTYPES = {np.dtype(np.int8): DataType.i8, np.dtype(np.uint8): DataType.u8}


def _const(ctx: Any, node: Any, name: str | None, what: str) -> np.ndarray | None:
    if name is None:
        return None
    if not ctx.is_const(name):
        raise UnsupportedError(f"{node.op_type} '{node.name}': {what} '{name}' must be a constant")
    return np.asarray(ctx.const(name))


def _param(ctx: Any, node: Any, name: str | None, what: str) -> np.ndarray | str | None:
    """A scale or zero point: its value when constant, else its tensor name (computed at run time, e.g. by
    DynamicQuantizeLinear, or a graph input)."""
    if name is None or ctx.is_const(name):
        return _const(ctx, node, name, what)
    return name


def _operand(ctx: Any, base: str, v: np.ndarray | str, axis: int, rank: int, what: str) -> str:
    """Primitive id of a scale / zero point operand, as float32, broadcasting against a rank-``rank`` tensor along
    ``axis``: a constant becomes Data; a run-time tensor is converted (and, when per-axis, reshaped)."""
    if not isinstance(v, str):
        return _data(ctx, base, per_axis(v, axis, rank, what))
    shape = ctx.shape(v)
    pid = ctx.add(Reorder(ctx.fresh(base + "_f32"), ctx.ref(v), format=Format.bfyx, dtype=DataType.f32))
    n = int(np.prod(shape)) if shape else 1
    if n == 1:
        return pid
    if len(shape) != 1:
        raise UnsupportedError(f"{what} '{v}': a scalar or a 1-D per-axis tensor expected, got shape {shape}")
    target = per_axis(np.zeros(n), axis, rank, what).shape
    return ctx.add(Reshape(ctx.fresh(base + "_axis"), pid, shape=target))


def _nonzero(v: np.ndarray | str | None) -> bool:
    return v is not None and (isinstance(v, str) or bool(np.any(v != 0)))


def _data(ctx: Any, base: str, value: np.ndarray) -> str:
    name = ctx.fresh(base)
    ctx.consts[name] = np.asarray(value, dtype=np.float32)
    return ctx.ref(name)


def dequant(ctx: Any, node: Any, x: str, scale: np.ndarray | str, zp: np.ndarray | str | None, axis: int,
            out: str) -> str:
    """Primitives computing ``(float(x) - zp) * scale`` into primitive ``out`` (scale / zero point: constants or
    run-time scalars, see :func:`_param`); returns ``out``."""
    rank = len(ctx.shape(x))
    xf = ctx.add(Reorder(ctx.fresh(out + "_f32"), ctx.ref(x), format=Format.bfyx, dtype=DataType.f32))
    if _nonzero(zp):
        z = _operand(ctx, out + "_zp", zp, axis, rank, f"{node.op_type} zero point")  # type: ignore[arg-type]
        xf = ctx.add(Eltwise(ctx.fresh(out + "_centered"), [xf, z], mode=EltwiseMode.sub))
    s = _operand(ctx, out + "_scale", scale, axis, rank, f"{node.op_type} scale")
    return ctx.add(Eltwise(out, [xf, s], mode=EltwiseMode.prod))


def quant(ctx: Any, node: Any, x: str, scale: np.ndarray | str, zp: np.ndarray | str | None, axis: int, out: str,
          dtype: np.dtype) -> str:
    """Primitives computing ``saturate(round_half_even(x / scale) + zp)`` in ``dtype`` into ``out``."""
    if dtype not in _QTYPES:
        raise UnsupportedError(f"{node.op_type} '{node.name}': output type {dtype}: only int8 and uint8 are "
                               f"supported")
    rank = len(ctx.shape(x))
    s = _operand(ctx, out + "_scale", scale, axis, rank, f"{node.op_type} scale")
    q = ctx.add(Eltwise(ctx.fresh(out + "_scaled"), [ctx.ref(x), s], mode=EltwiseMode.div))
    q = ctx.add(Activation(ctx.fresh(out + "_rounded"), q, "round"))
    if _nonzero(zp):
        z = _operand(ctx, out + "_zp", zp, axis, rank, f"{node.op_type} zero point")  # type: ignore[arg-type]
        q = ctx.add(Eltwise(ctx.fresh(out + "_shifted"), [q, z], mode=EltwiseMode.sum))
    return ctx.add(Reorder(out, q, format=Format.bfyx, dtype=_QTYPES[dtype], convert_mode="round"))


def _axis(ctx: Any, node: Any) -> int:
    a = ctx.attrs(node)
    if a.get("block_size", 0):
        raise UnsupportedError(f"{node.op_type} '{node.name}': blocked quantization (block_size) is not supported")
    return int(a.get("axis", 1))


@converter("DequantizeLinear", versions=(10, 13, 19, 21, 23, 24, 25, 28))
def dequantize_linear(ctx: Any, node: Any) -> None:
    """DequantizeLinear of a tensor computed at run time (constant ones fold at import; one that
    :func:`quantize_linear` turned into a fake quantization is already there)."""
    if node.output[0] in ctx.aliases:
        return
    scale = _param(ctx, node, node.input[1], "x_scale")
    zp = _param(ctx, node, optional_input(node, 2), "x_zero_point")
    dequant(ctx, node, node.input[0], scale, zp, _axis(ctx, node), node.output[0])  # type: ignore[arg-type]


@converter("QuantizeLinear", versions=(10, 13, 19, 21, 23, 24, 25, 28))
def quantize_linear(ctx: Any, node: Any) -> None:
    """QuantizeLinear to int8 / uint8 (the zero point's type, or ``output_dtype``, uint8 by default)."""
    scale = _param(ctx, node, node.input[1], "y_scale")
    zp = _param(ctx, node, optional_input(node, 2), "y_zero_point")
    dtype = _zp_dtype(ctx, node, optional_input(node, 2))
    if _fake_quantize(ctx, node, scale, zp, dtype):
        return
    quant(ctx, node, node.input[0], scale, zp, _axis(ctx, node), node.output[0], np.dtype(dtype))  # type: ignore


def _zp_dtype(ctx: Any, node: Any, zp: str | None) -> np.dtype:
    """The quantized type: the zero point's (as the model declares it), else ``output_dtype``, else uint8."""
    if zp is not None:
        if ctx.is_const(zp):
            return np.dtype(ctx.const(zp).dtype)
        for vi in list(ctx.model.graph.input) + list(ctx.model.graph.value_info):
            if vi.name == zp and vi.type.tensor_type.elem_type:
                return np.dtype(helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type))
        return np.dtype(np.uint8)
    t = int(ctx.attrs(node).get("output_dtype", 0))
    return np.dtype(helper.tensor_dtype_to_np_dtype(t)) if t else np.dtype(np.uint8)


def _qdq_readers(ctx: Any, node: Any) -> list[Any] | None:
    """The DequantizeLinear nodes that read QuantizeLinear ``node``'s output, when they are all its readers, it is
    no graph output, and each dequantizes with the very same (constant) scale, zero point and axis; else None."""
    out = node.output[0]
    if out in ctx.output_names:
        return None
    readers = [n for n in ctx.model.graph.node if out in n.input]
    if not readers or any(n.op_type != "DequantizeLinear" or n.input[0] != out for n in readers):
        return None
    same = (node.input[1], optional_input(node, 2), ctx.attrs(node).get("axis", 1))
    if any((n.input[1], optional_input(n, 2), ctx.attrs(n).get("axis", 1)) != same for n in readers):
        return None
    return readers


def _fake_quantize(ctx: Any, node: Any, scale: np.ndarray | str | None, zp: np.ndarray | str | None,
                   dtype: np.dtype) -> bool:
    """A QuantizeLinear read only by matching DequantizeLinear nodes (a QDQ pair, as onnxruntime's tools write
    around every activation) becomes one chain of activations on the float value, fused into the producer's kernel
    by prepare_primitive_fusing: ``s * clamp(round(x * (1/s)), lo - zp, hi - zp)`` with a per-tensor constant scale
    ``s`` and zero point. ``x * (1/s)`` may differ from ONNX's ``x / s`` in the last bit, which changes the rounding
    only for a value within one float ulp of a half step. Returns False (nothing added) when it does not apply."""
    if scale is None or isinstance(scale, str) or isinstance(zp, str) or scale.size != 1 or (
            zp is not None and zp.size != 1):
        return False
    readers = _qdq_readers(ctx, node)
    if readers is None or dtype not in _QTYPES:
        return False
    s = float(np.float32(scale.reshape(-1)[0]))
    z = 0.0 if zp is None else float(zp.reshape(-1)[0])
    lo, hi = QUANT_TYPES[dtype]
    base = node.output[0]
    inv = float(np.float32(1.0) / np.float32(s))
    y = ctx.add(Activation(ctx.fresh(base + "_scaled"), ctx.ref(node.input[0]), "linear", a=inv, b=0.0))
    y = ctx.add(Activation(ctx.fresh(base + "_rounded"), y, "round"))
    y = ctx.add(Activation(ctx.fresh(base + "_clamped"), y, "clamp", a=lo - z, b=hi - z))
    y = ctx.add(Activation(ctx.fresh(base + "_fq"), y, "linear", a=s, b=0.0))
    for r in readers:
        ctx.aliases[r.output[0]] = y
    return True


def _float_operand(ctx: Any, node: Any, x: str, scale: str, zp: str | None, axis: int, base: str) -> str:
    """Tensor name of the dequantized operand: a folded constant (weights) or primitives (activations)."""
    s = _param(ctx, node, scale, "scale")
    z = _param(ctx, node, zp, "zero point")
    if ctx.is_const(x) and not isinstance(s, str) and not isinstance(z, str):
        name = ctx.fresh(base)
        ctx.consts[name] = dequantize(ctx.const(x), s, z, axis)  # type: ignore[arg-type]
        return name
    return dequant(ctx, node, x, s, z, axis, ctx.fresh(base))  # type: ignore[arg-type]


def _run_float(ctx: Any, op: str, inputs: list[str], out: str, node: Any) -> None:
    """Convert a float ``op`` node (Conv, MatMul) with ``node``'s attributes through its own converter."""
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    CONVERTERS[op].fn(ctx, helper.make_node(op, inputs, [out], name=f"{node.name}/{op}", **attrs))


@converter("QLinearConv", versions=(10,))
def qlinear_conv(ctx: Any, node: Any) -> None:
    """QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B): dequantized Conv, quantized output.
    The int32 bias B is dequantized with x_scale * w_scale (per output channel)."""
    out = node.output[0]
    b = optional_input(node, 8)
    if integer_conv(ctx, node, node.input[0], node.input[3], node.input[2], node.input[5], b,
                    (node.input[1], node.input[4], node.input[6], optional_input(node, 7))):
        return
    xf = _float_operand(ctx, node, node.input[0], node.input[1], node.input[2], 1, out + "_x")
    wf = _float_operand(ctx, node, node.input[3], node.input[4], node.input[5], 0, out + "_w")
    inputs = [xf, wf]
    if b is not None:
        xs, ws = _param(ctx, node, node.input[1], "x_scale"), _param(ctx, node, node.input[4], "w_scale")
        if ctx.is_const(b) and not isinstance(xs, str) and not isinstance(ws, str):
            bias = ctx.const(b).astype(np.float64) * float(np.asarray(xs).reshape(-1)[0])
            bname = ctx.fresh(out + "_b")
            ctx.consts[bname] = (bias * np.asarray(ws, dtype=np.float64).reshape(-1)).astype(np.float32)
        else:  # B * x_scale * w_scale at run time
            assert xs is not None and ws is not None  # required inputs
            bname = dequant(ctx, node, b, ws, None, 0, ctx.fresh(out + "_bw"))
            bname = ctx.add(Eltwise(ctx.fresh(out + "_b"), [bname, _operand(ctx, out + "_xs", xs, 0, 1, "x_scale")],
                                    mode=EltwiseMode.prod))
        inputs.append(bname)
    yf = ctx.fresh(out + "_y")
    _run_float(ctx, "Conv", inputs, yf, node)
    quant(ctx, node, yf, _param(ctx, node, node.input[6], "y_scale"),  # type: ignore[arg-type]
          _param(ctx, node, optional_input(node, 7), "y_zero_point"), 1, out,
          _zp_dtype(ctx, node, optional_input(node, 7)))


@converter("QLinearMatMul", versions=(10, 21))
def qlinear_matmul(ctx: Any, node: Any) -> None:
    """QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp): per-row a and per-column b scales."""
    out = node.output[0]
    if integer_matmul(ctx, node, node.input[0], node.input[3], node.input[2], node.input[5],
                      (node.input[1], node.input[4], node.input[6], optional_input(node, 7))):
        return
    af = _float_operand(ctx, node, node.input[0], node.input[1], node.input[2], -2, out + "_a")
    bf = _float_operand(ctx, node, node.input[3], node.input[4], node.input[5], -1, out + "_b")
    yf = ctx.fresh(out + "_y")
    _run_float(ctx, "MatMul", [af, bf], yf, node)
    quant(ctx, node, yf, _param(ctx, node, node.input[6], "y_scale"),  # type: ignore[arg-type]
          _param(ctx, node, optional_input(node, 7), "y_zero_point"), -1, out,
          _zp_dtype(ctx, node, optional_input(node, 7)))


def _centered(ctx: Any, node: Any, x: str, zp: str | None, axis: int, base: str) -> str:
    """Tensor name of ``float(x) - zp`` (scale 1)."""
    one = np.ones(1, np.float32)
    if ctx.is_const(x) and (zp is None or ctx.is_const(zp)):
        name = ctx.fresh(base)
        ctx.consts[name] = dequantize(ctx.const(x), one, _const(ctx, node, zp, "zero point"), axis)
        return name
    return dequant(ctx, node, x, one, _param(ctx, node, zp, "zero point"), axis, ctx.fresh(base))


def _to_int32(ctx: Any, yf: str, out: str) -> None:
    ctx.add(Reorder(out, ctx.ref(yf), format=Format.bfyx, dtype=DataType.i32, convert_mode="round"))


@converter("ConvInteger", versions=(10,))
def conv_integer(ctx: Any, node: Any) -> None:
    """ConvInteger(x, w, x_zp, w_zp) → int32: Conv of the zero-point-centred operands."""
    out = node.output[0]
    if integer_conv(ctx, node, node.input[0], node.input[1], optional_input(node, 2), optional_input(node, 3)):
        return
    xf = _centered(ctx, node, node.input[0], optional_input(node, 2), 1, out + "_x")
    wf = _centered(ctx, node, node.input[1], optional_input(node, 3), 0, out + "_w")
    yf = ctx.fresh(out + "_y")
    _run_float(ctx, "Conv", [xf, wf], yf, node)
    _to_int32(ctx, yf, out)


@converter("MatMulInteger", versions=(10,))
def matmul_integer(ctx: Any, node: Any) -> None:
    """MatMulInteger(A, B, a_zp, b_zp) → int32: MatMul of the zero-point-centred operands (per-row a_zp,
    per-column b_zp)."""
    out = node.output[0]
    if integer_matmul(ctx, node, node.input[0], node.input[1], optional_input(node, 2), optional_input(node, 3)):
        return
    af = _centered(ctx, node, node.input[0], optional_input(node, 2), -2, out + "_a")
    bf = _centered(ctx, node, node.input[1], optional_input(node, 3), -1, out + "_b")
    yf = ctx.fresh(out + "_y")
    _run_float(ctx, "MatMul", [af, bf], yf, node)
    _to_int32(ctx, yf, out)


@converter("DynamicQuantizeLinear", versions=(11,))
def dynamic_quantize_linear(ctx: Any, node: Any) -> None:
    """DynamicQuantizeLinear(x) → (y uint8, y_scale, y_zero_point): scale = (max(0, max x) - min(0, min x)) / 255,
    zero point = saturate(round(-min / scale)), y = saturate(round(x / scale) + zero point). The scalar outputs are
    stored as shape (1,) (an ONNX rank-0 tensor)."""
    x = ctx.ref(node.input[0])
    y, ys, yz = node.output[0], node.output[1], node.output[2]
    zero = _data(ctx, y + "_zero", np.zeros(1))
    mn = ctx.add(Reduce(ctx.fresh(y + "_min"), x, mode="min", axes=(), keep_dims=False))
    mn = ctx.add(Eltwise(ctx.fresh(y + "_min0"), [mn, zero], mode=EltwiseMode.min))
    mx = ctx.add(Reduce(ctx.fresh(y + "_max"), x, mode="max", axes=(), keep_dims=False))
    mx = ctx.add(Eltwise(ctx.fresh(y + "_max0"), [mx, zero], mode=EltwiseMode.max))
    rng = ctx.add(Eltwise(ctx.fresh(y + "_range"), [mx, mn], mode=EltwiseMode.sub))
    scale = ctx.add(Eltwise(ys if ys else ctx.fresh(y + "_scale"), [rng, _data(ctx, y + "_255", np.full(1, 255.0))],
                            mode=EltwiseMode.div))
    z = ctx.add(Eltwise(ctx.fresh(y + "_negmin"), [zero, mn], mode=EltwiseMode.sub))
    z = ctx.add(Eltwise(ctx.fresh(y + "_zpf"), [z, scale], mode=EltwiseMode.div))
    z = ctx.add(Activation(ctx.fresh(y + "_zpr"), z, "round"))
    z = ctx.add(Activation(ctx.fresh(y + "_zpc"), z, "clamp", a=0.0, b=255.0))
    if yz:
        ctx.add(Reorder(yz, z, format=Format.bfyx, dtype=DataType.u8, convert_mode="round"))
    q = ctx.add(Eltwise(ctx.fresh(y + "_scaled"), [x, scale], mode=EltwiseMode.div))
    q = ctx.add(Activation(ctx.fresh(y + "_rounded"), q, "round"))
    q = ctx.add(Eltwise(ctx.fresh(y + "_shifted"), [q, z], mode=EltwiseMode.sum))
    ctx.add(Reorder(y, q, format=Format.bfyx, dtype=DataType.u8, convert_mode="round"))



CLDNN_DOMAIN = "ai.cldnn_py"
"""The operator domain of the nodes this package's own ONNX rewrites add (never in a user's model)."""


@converter("DynamicQuantParams", versions=(1,), domain=CLDNN_DOMAIN)
def dynamic_quant_params(ctx: Any, node: Any) -> None:
    """ai.cldnn_py DynamicQuantParams(x) → (scale, zero point, −zero point, 255 − zero point) as float32 scalars
    (shape (1,)): one DynamicQuantParams primitive and four crops of it (views, no kernel). Written by
    ``frontend/onnx_dynamic_quant.py`` in place of a DynamicQuantizeLinear whose uint8 output it rewrote."""
    from ...primitives.crop import Crop
    from ...primitives.dynamic_quant_params import DynamicQuantParams

    base = node.output[0] or node.name
    params = ctx.add(DynamicQuantParams(ctx.fresh(base + "_params"), ctx.ref(node.input[0])))
    for k, out in enumerate(node.output):
        if out:
            ctx.add(Crop(out, params, shape=(1,), offsets=(k,)))
