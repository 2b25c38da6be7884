"""kernel_selector.common.cpu_ir_intrinsics: the LLVM declarations the IR micro-kernels share (names and
signatures as LLVM spells them; one declaration per module; an unknown name refused)."""

from __future__ import annotations

import pytest
from llvmlite import ir

from kernel_selector.common.cpu_ir_intrinsics import vector_intrinsic


def _builder() -> ir.IRBuilder:
    module = ir.Module("m")
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), []), "f")
    return ir.IRBuilder(fn.append_basic_block("entry"))


@pytest.mark.parametrize("name, want, n_args", [
    ("fmuladd", "llvm.fmuladd.v16f32", 3), ("maxnum", "llvm.maxnum.v16f32", 2), ("rint", "llvm.rint.v16f32", 1),
    ("masked.load", "llvm.masked.load.v16f32.p0v16f32", 4), ("masked.store", "llvm.masked.store.v16f32.p0v16f32", 4),
])
def test_declarations(name, want, n_args):
    b = _builder()
    fn = vector_intrinsic(b, name, 16)
    assert fn.name == want and len(fn.function_type.args) == n_args
    assert vector_intrinsic(b, name, 16) is fn  # declared once per module
    assert vector_intrinsic(b, name, 8).name == want.replace("16", "8")


def test_unknown_name_is_refused():
    with pytest.raises(ValueError, match="'exp'"):
        vector_intrinsic(_builder(), "exp", 16)


def test_prefetch_call_reads_or_writes_into_every_level():
    """prefetch: one declaration of llvm.prefetch.p0i8 per module, a float pointer cast to i8*, rw 0 or 1,
    locality 3, data cache."""
    from kernel_selector.common.cpu_ir_intrinsics import prefetch

    b = _builder()
    ptr = b.alloca(ir.FloatType(), 4)
    prefetch(b, ptr)
    prefetch(b, ptr, write=True)
    text = str(b.module)
    assert text.count("declare void @\"llvm.prefetch.p0i8\"") == 1
    calls = [line for line in text.splitlines() if "call void @\"llvm.prefetch.p0i8\"" in line]
    assert len(calls) == 2
    assert "i32 0, i32 3, i32 1" in calls[0] and "i32 1, i32 3, i32 1" in calls[1]
