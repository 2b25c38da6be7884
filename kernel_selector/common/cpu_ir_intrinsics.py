"""LLVM vector intrinsics on ``<w x float>`` for the CPU engine's IR micro-kernels (numba ``@intrinsic`` bodies):
one declaration helper instead of a ``cgutils.get_or_insert_function`` with its hand-written signature in every
kernel."""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba.core import cgutils


def vector_intrinsic(builder: ir.IRBuilder, name: str, w: int) -> Any:
    """The LLVM intrinsic ``llvm.<name>`` on ``<w x float>``, declared once per module: ``fmuladd`` (a·b + c, fused
    where the target has FMA), ``maxnum`` / ``minnum`` (two operands, NaN-ignoring), ``floor`` / ``rint`` (one),
    ``masked.load`` (pointer, i32 alignment, ``<w x i1>`` mask, pass-through) and ``masked.store`` (value, pointer,
    i32 alignment, mask). Raises ValueError for another name."""
    vt = ir.VectorType(ir.FloatType(), w)
    mt, i32 = ir.VectorType(ir.IntType(1), w), ir.IntType(32)
    types = {
        "fmuladd": ir.FunctionType(vt, [vt, vt, vt]),
        "maxnum": ir.FunctionType(vt, [vt, vt]),
        "minnum": ir.FunctionType(vt, [vt, vt]),
        "floor": ir.FunctionType(vt, [vt]),
        "rint": ir.FunctionType(vt, [vt]),
        "masked.load": ir.FunctionType(vt, [vt.as_pointer(), i32, mt, vt]),
        "masked.store": ir.FunctionType(ir.VoidType(), [vt, vt.as_pointer(), i32, mt]),
    }
    if name not in types:
        raise ValueError(f"no vector intrinsic {name!r}; known: {', '.join(types)}")
    suffix = f".v{w}f32.p0v{w}f32" if name.startswith("masked.") else f".v{w}f32"
    return cgutils.get_or_insert_function(builder.module, types[name], f"llvm.{name}{suffix}")
