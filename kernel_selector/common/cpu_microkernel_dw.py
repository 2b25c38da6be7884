"""The depthwise-convolution row micro-kernel of the CPU engine, written in LLVM IR: NV·W outputs of one output row of
one channel plane, the accumulators in vector registers across every filter tap.

Why: a depthwise layer does KH·KW multiply-adds per output, too few for a GEMM, and numba keeps no accumulator in a
register: its plane kernel (``convolution_cpu_depthwise``) adds one tap at a time over the whole plane, a load and
a store of the running sum per tap, after splitting the input into stride phases (a strided gather numba does
element by element). Here one call computes a row segment: per tap (offset ``toff[t]`` into a zero-bordered copy of
the input plane, weight ``wk[t]``) NV vector loads and NV fused multiply-adds, the sums staying in registers until
the store (the register blocking of oneDNN's and XNNPACK's depthwise micro-kernels, along a row of one plane
instead of across channels, so the data stays bfyx). Stride 2 along x loads two vectors per output vector and keeps
their even lanes (one shuffle: no phases); any stride along y is the caller's row pointer.

Operands (float32 1-D arrays, int64 offsets and counts):
- ``x``: the padded plane; output column j of this segment, tap t reads ``x[x_off + toff[t] + j * SX]``. The
  caller keeps at least ``2 · NV · W`` readable floats past the last one a valid column reads (loads are whole
  vectors; lanes past ``ncols`` are computed and dropped).
- ``wk[w_off + t]``: tap t's weight, t < ``taps``.
- output: ``c[c_off + j]`` for j < ``ncols`` (≤ NV·W; a shorter segment stores under a mask) = ``bias`` + the
  sum over the taps.
"""

from __future__ import annotations

from typing import Any

import numba
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .cpu_ir_intrinsics import vector_intrinsic
from .cpu_microkernel import W, _splat, reduction_loop


def _emit(context: Any, builder: ir.IRBuilder, sig: Any, args: list[Any], nv: int, w: int, sx: int) -> Any:
    x_arr, x_off, toff_arr, taps, wk_arr, w_off, c_arr, c_off, ncols, bias = args
    f32, i64, i32 = ir.FloatType(), ir.IntType(64), ir.IntType(32)
    vt = ir.VectorType(f32, w)
    x = builder.gep(context.make_array(sig.args[0])(context, builder, x_arr).data, [x_off])
    toff = context.make_array(sig.args[2])(context, builder, toff_arr).data
    wk = builder.gep(context.make_array(sig.args[4])(context, builder, wk_arr).data, [w_off])
    c = builder.gep(context.make_array(sig.args[6])(context, builder, c_arr).data, [c_off])
    fma = vector_intrinsic(builder, "fmuladd", w)
    mstore = vector_intrinsic(builder, "masked.store", w)
    even = ir.Constant(ir.VectorType(i32, w), [2 * i for i in range(w)])

    def vload(base: Any, off: int) -> Any:
        return builder.load(builder.bitcast(builder.gep(base, [ir.Constant(i64, off)]), vt.as_pointer()), align=4)

    init = _splat(builder, bias, vt)

    def step(t: Any, acc: list[Any]) -> list[Any]:
        base = builder.gep(x, [builder.load(builder.gep(toff, [t]))])
        wv = _splat(builder, builder.load(builder.gep(wk, [t])), vt)
        nxt = []
        for v in range(nv):
            if sx == 1:
                xv = vload(base, v * w)
            else:  # stride 2: the even lanes of two consecutive vectors
                xv = builder.shuffle_vector(vload(base, 2 * v * w), vload(base, 2 * v * w + w), even)
            nxt.append(builder.call(fma, [wv, xv, acc[v]]))
        return nxt

    final = reduction_loop(builder, "dw", taps, [init] * nv, step)

    whole = builder.icmp_signed(">=", ncols, ir.Constant(i64, nv * w))
    with builder.if_else(whole) as (then, otherwise):
        with then:  # a whole segment: plain stores
            for v in range(nv):
                builder.store(final[v], builder.bitcast(builder.gep(c, [ir.Constant(i64, v * w)]), vt.as_pointer()),
                              align=4)
        with otherwise:  # the row's last, shorter segment: stores under a column mask
            lanes = ir.Constant(ir.VectorType(i64, w), list(range(w)))
            for v in range(nv):
                left = _splat(builder, builder.sub(ncols, ir.Constant(i64, v * w)), ir.VectorType(i64, w))
                mask = builder.icmp_signed("<", lanes, left)
                builder.call(mstore, [final[v], builder.bitcast(builder.gep(c, [ir.Constant(i64, v * w)]),
                                                                vt.as_pointer()), ir.Constant(i32, 4), mask])
    return context.get_dummy_value()


def make_dw_row(nv: int, w: int, sx: int) -> Any:
    """A numba intrinsic ``dw_row(x, x_off, toff, taps, wk, w_off, c, c_off, ncols, bias)``: one segment of up to
    ``nv`` · ``w`` outputs of a depthwise row, stride ``sx`` (1 or 2) along x, as the module docstring says (float32
    ``x``, ``wk``, ``c``; int64 ``toff``; float32 ``bias``). Callable only from numba-compiled code. Raises
    ValueError for another stride."""
    if sx not in (1, 2):
        raise ValueError(f"the depthwise row micro-kernel takes stride 1 or 2 along x, not {sx}")

    @intrinsic
    def dw_row(typingctx: Any, x: Any, x_off: Any, toff: Any, taps: Any, wk: Any, w_off: Any, c: Any, c_off: Any,
               ncols: Any, bias: Any) -> Any:
        ip = types.intp
        sig = types.void(x, ip, toff, ip, wk, ip, c, ip, ip, types.float32)
        return sig, lambda context, builder, s, args: _emit(context, builder, s, args, nv, w, sx)

    return dw_row


DW_VECTORS = 4
"""Vectors per segment at most: 4 accumulators (32 outputs on AVX2), and for stride 2 eight loads, within 16
registers. Rows of at most W and 2·W outputs take the 1- and 2-vector forms (:func:`segment_vectors`)."""
dw_row_s1_1, dw_row_s1_2, dw_row_s1_4 = (make_dw_row(n, W, 1) for n in (1, 2, 4))
dw_row_s2_1, dw_row_s2_2, dw_row_s2_4 = (make_dw_row(n, W, 2) for n in (1, 2, 4))


@numba.njit(cache=True)
def segment_vectors(ow: int) -> int:
    """Vectors per segment for output rows of ``ow`` columns: 1, 2 or DW_VECTORS (the fewest lanes wasted on short
    rows). Callable from Python and from numba-compiled code."""
    return 1 if ow <= W else 2 if ow <= 2 * W else DW_VECTORS
