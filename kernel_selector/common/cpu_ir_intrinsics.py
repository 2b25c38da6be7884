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


def prefetch(builder: ir.IRBuilder, ptr: Any, write: bool = False) -> None:
    """A call of ``llvm.prefetch`` (declared once per module) on the cache line of ``ptr`` (any pointer type), for
    reading or, with ``write``, for writing, into every cache level (locality 3), as data. A prefetch never faults:
    an address past a buffer's end costs only the instruction."""
    i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                        "llvm.prefetch.p0i8")
    builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, int(write)), ir.Constant(i32, 3),
                      ir.Constant(i32, 1)])
