"""numpy forms of ONNX's linear quantization, for constants folded at import (quantized weights, int32 biases) and
for the converters of ``onnx_ops/quantization.py``.

onnx's reference evaluator implements QuantizeLinear/DequantizeLinear only from version 19, so a QDQ model of
opset 13-18 (onnxruntime's quantization tools write those) could not fold its weights' DequantizeLinear; these
follow the ONNX operator definitions (https://onnx.ai/onnx/operators/onnx__QuantizeLinear.html): per-tensor or
per-axis scales and zero points, round half to even, saturation to the output type.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import UnsupportedError

QUANT_TYPES = {np.dtype(np.int8): (-128, 127), np.dtype(np.uint8): (0, 255)}
"""The quantized types the engine stores (ONNX's int16, int4, float8 ... are refused) and their ranges."""


def per_axis(v: np.ndarray, axis: int, rank: int, what: str) -> np.ndarray:
    """A scale or zero point ``v`` (a scalar or a 1-D tensor along ``axis``) shaped to broadcast against a tensor of
    ``rank`` by numpy rules; raises UnsupportedError for another shape (blocked quantization)."""
    v = np.asarray(v)
    if v.size == 1:
        return v.reshape(())
    if v.ndim != 1:
        raise UnsupportedError(f"{what}: a scalar or a 1-D per-axis tensor expected, got shape {v.shape} "
                               f"(blocked quantization is not supported)")
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        raise UnsupportedError(f"{what}: axis {axis} out of range for rank {rank}")
    shape = [1] * rank
    shape[axis] = v.size
    return v.reshape(shape)


def dequantize(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None, axis: int = 1) -> np.ndarray:
    """DequantizeLinear: ``(x - zero_point) * scale`` in float32 (int32 x too: quantized biases)."""
    rank = max(x.ndim, 1)
    s = per_axis(scale, axis, rank, "DequantizeLinear x_scale").astype(np.float32)
    xf = x.astype(np.float32)
    if zero_point is not None:
        xf = xf - per_axis(zero_point, axis, rank, "DequantizeLinear x_zero_point").astype(np.float32)
    return (xf * s).astype(np.float32)


def quantize(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None, axis: int = 1,
             dtype: Any = np.uint8) -> np.ndarray:
    """QuantizeLinear: ``saturate(round_half_even(x / scale) + zero_point)`` in ``dtype`` (zero_point's when given)."""
    out = np.dtype(zero_point.dtype if zero_point is not None else dtype)
    if out not in QUANT_TYPES:
        raise UnsupportedError(f"QuantizeLinear to {out}: only int8 and uint8 are supported")
    rank = max(x.ndim, 1)
    s = per_axis(scale, axis, rank, "QuantizeLinear y_scale").astype(np.float32)
    q = np.rint(x.astype(np.float32) / s)
    if zero_point is not None:
        q = q + per_axis(zero_point, axis, rank, "QuantizeLinear y_zero_point").astype(np.float32)
    lo, hi = QUANT_TYPES[out]
    return np.clip(q, lo, hi).astype(out)


def weight_qparams(w: np.ndarray | None, scale: np.ndarray | None, zero_point: np.ndarray | None, axis: int,
                   channels_axis: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(w, float32 scale, zero point) of constant quantized weights whose scale (and zero point, absent: zeros of
    w's type) is one value or one per channel along ``channels_axis`` (``axis``: the axis the model declares for
    them); None for anything else (not 8-bit, blocked, another axis, mismatched shapes or types)."""
    if w is None or w.dtype not in QUANT_TYPES or scale is None or scale.ndim > 1:
        return None
    z = np.zeros(scale.shape, w.dtype) if zero_point is None else zero_point
    if z.dtype != w.dtype or z.shape != scale.shape:
        return None
    if scale.size > 1 and (axis % w.ndim != channels_axis or scale.size != w.shape[channels_axis]):
        return None
    return w, scale.astype(np.float32), z


def fold(op_type: str, inputs: list[np.ndarray | None], attrs: dict[str, Any]) -> list[np.ndarray] | None:
    """The outputs of a constant QuantizeLinear / DequantizeLinear node, or None for another op type (left to
    onnx's reference evaluator)."""
    axis = int(attrs.get("axis", 1))
    if attrs.get("block_size", 0):
        raise UnsupportedError(f"{op_type}: blocked quantization (block_size) is not supported")
    zp = inputs[2] if len(inputs) > 2 else None
    if op_type == "DequantizeLinear":
        return [dequantize(inputs[0], inputs[1], zp, axis)]  # type: ignore[arg-type]
    if op_type == "QuantizeLinear":
        return [quantize(inputs[0], inputs[1], zp, axis, _output_dtype(attrs))]  # type: ignore[arg-type]
    return None


def _output_dtype(attrs: dict[str, Any]) -> Any:
    from onnx import helper

    t = int(attrs.get("output_dtype", 0))
    return helper.tensor_dtype_to_np_dtype(t) if t else np.uint8
