"""Helpers shared by the element-wise converters (activations.py, binary.py): attribute defaults from the ONNX
schema of the model's opset, scalar constants, and input data type checks."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import UnsupportedError
from ...layout import DataType
from ...primitives.data import Data


def attr(ctx: Any, node: Any, name: str) -> Any:
    """Attribute ``name`` of ``node``, or its default in the schema of the model's opset (None without one).

    Defaults changed between versions (Selu-1 vs Selu-6, Clip-6's ±FLT_MAX), so they are read from the schema
    (``onnx.defs.get_schema(op, opset)``) rather than written here.
    """
    a = ctx.attrs(node)
    if name in a:
        return a[name]
    import onnx.defs
    from onnx import helper

    schema = onnx.defs.get_schema(node.op_type, ctx.opset)
    spec = schema.attributes.get(name)
    if spec is None or not spec.default_value.type:
        return None
    v = helper.get_attribute_value(spec.default_value)
    return v.decode() if isinstance(v, bytes) else v


def since_version(ctx: Any, node: Any) -> int:
    """The since-version of ``node``'s operator at the model's opset."""
    import onnx.defs

    return int(onnx.defs.get_schema(node.op_type, ctx.opset).since_version)


def scalar(ctx: Any, base: str, value: float | int, dtype: DataType) -> str:
    """A new one-element Data of ``dtype`` holding ``value``; returns its id. Integers saturate to int32."""
    if dtype == DataType.f32:
        arr = np.array([value], np.float32)
    else:
        info = np.iinfo(dtype.numpy)
        arr = np.array([min(max(int(value), int(info.min)), int(info.max))], dtype.numpy)
    return ctx.add(Data(ctx.fresh(base), arr))


def require_f32(ctx: Any, node: Any, name: str) -> None:
    """Raise UnsupportedError when tensor ``name`` (an input of ``node``) is not float32 on the device."""
    dt = ctx.layout(name).dtype
    if dt != DataType.f32:
        raise UnsupportedError(f"{node.op_type} '{node.name}': input '{name}' has data type {dt.value}; "
                               f"only float32 is supported for this operator")
