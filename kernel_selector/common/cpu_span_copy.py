"""Copy a short span of float32 with whole SIMD vectors and one masked tail (CPU engine, an LLVM-IR intrinsic).

Why: the CPU kernels copy many short rows (a 7-, 14- or 28-wide row of a small plane into a zero-bordered scratch,
a grid row out to the output). numba's loop over such a span is vectorized by LLVM for W·4 elements at a time
(16-float vectors, interleaved 4), so a row shorter than 64 floats runs entirely in the scalar remainder loop, and
its slices carry a runtime overlap check: the depthwise grid of a 14 × 14 plane spent 3× its arithmetic in its two
row copies. :func:`copy_span` moves ``n`` floats as ⌊n / W⌋ plain vector loads and stores and one masked load and
store for the rest (AVX-512's masked moves: no fault on the lanes left out, nothing written past ``n``), so the
source and destination may end at the end of their arrays.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .cpu_ir_intrinsics import vector_intrinsic
from .cpu_microkernel import W, _splat


def _emit_copy(context: Any, builder: ir.IRBuilder, sig: Any, args: list[Any], w: int) -> Any:
    dst_arr, d0, src_arr, s0, n = args
    f32, i64, i32 = ir.FloatType(), ir.IntType(64), ir.IntType(32)
    vt = ir.VectorType(f32, w)
    dst = builder.gep(context.make_array(sig.args[0])(context, builder, dst_arr).data, [d0])
    src = builder.gep(context.make_array(sig.args[2])(context, builder, src_arr).data, [s0])
    mload = vector_intrinsic(builder, "masked.load", w)
    mstore = vector_intrinsic(builder, "masked.store", w)

    def vptr(base: Any, off: Any) -> Any:
        return builder.bitcast(builder.gep(base, [off]), vt.as_pointer())

    whole = builder.mul(builder.sdiv(n, ir.Constant(i64, w)), ir.Constant(i64, w))
    entry = builder.block
    loop = builder.append_basic_block("copy.loop")
    tail = builder.append_basic_block("copy.tail")
    builder.cbranch(builder.icmp_signed(">", whole, ir.Constant(i64, 0)), loop, tail)
    builder.position_at_end(loop)
    i = builder.phi(i64)
    i.add_incoming(ir.Constant(i64, 0), entry)
    builder.store(builder.load(vptr(src, i), align=4), vptr(dst, i), align=4)
    i1 = builder.add(i, ir.Constant(i64, w))
    i.add_incoming(i1, loop)
    builder.cbranch(builder.icmp_signed("<", i1, whole), loop, tail)
    builder.position_at_end(tail)
    left = builder.sub(n, whole)  # 0 to W - 1 lanes (none: an empty mask moves nothing)
    lanes = ir.Constant(ir.VectorType(i64, w), list(range(w)))
    mask = builder.icmp_signed("<", lanes, _splat(builder, left, ir.VectorType(i64, w)))
    v = builder.call(mload, [vptr(src, whole), ir.Constant(i32, 4), mask, ir.Constant(vt, [0.0] * w)])
    builder.call(mstore, [v, vptr(dst, whole), ir.Constant(i32, 4), mask])
    return context.get_dummy_value()


@intrinsic
def _copy_span(typingctx: Any, dst: Any, d0: Any, src: Any, s0: Any, n: Any) -> Any:
    """``dst[d0 : d0 + n] = src[s0 : s0 + n]`` for float32 1-D arrays, n ≥ 0 (int64 offsets and count), as whole
    W-float vectors and one masked tail (module docstring). The spans must not overlap. No bounds check: the caller
    keeps both spans inside their arrays. Callable only from numba-compiled code."""
    sig = types.void(dst, types.intp, src, types.intp, types.intp)
    return sig, lambda context, builder, s, args: _emit_copy(context, builder, s, args, W)


copy_span: Any = _copy_span  # called as copy_span(dst, d0, src, s0, n) from numba code (the typing context is numba's)
