"""The pooling row micro-kernel of the CPU engine, written in LLVM IR: NV·W outputs of a pooling window laid out as a
flat grid (``kernels/pooling/cpu_pooling_grid.py``), the running max or sum in vector registers across every tap.

The depthwise micro-kernel's structure (:mod:`.cpu_microkernel_dw`) without weights: per tap (offset ``toff[t]``
into the bordered input) NV vector loads (for stride 2 along x, two loads per vector and their even lanes) and NV
max or add operations; then, for an average, one division per output by its divisor. numba's loops over the short
rows of small planes (13-28 outputs) ran in their scalar remainder (see :mod:`.cpu_span_copy`).

Operands (float32 1-D arrays, int64 offsets and counts):
- ``x``: the bordered input; output j of this segment, tap t reads ``x[x_off + toff[t] + j * SX]``; the caller
  keeps ``2 · NV · W`` readable floats past the last one a valid output reads. Border values are the caller's: −inf
  for a max (so a window's padding never wins), 0 for a sum.
- ``c[c_off + j]`` for j < NV·W (whole vectors, no mask): the max over the taps, where an input NaN never wins
  (``a > m ? a : m``, as the plane passes and the element-wise table's max pooling; −inf when no tap is a number),
  or the sum over the taps divided by ``div[d_off + j]``.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .cpu_microkernel import W, reduction_loop


def combine(builder: ir.IRBuilder, a: Any, m: Any, is_max: bool) -> Any:
    """One tap into a running max or sum (vectors or scalars): ``a > m ? a : m`` (an input NaN never wins), or
    ``m + a``."""
    if is_max:
        return builder.select(builder.fcmp_ordered(">", a, m), a, m)
    return builder.fadd(m, a)


def _emit(context: Any, builder: ir.IRBuilder, sig: Any, args: list[Any], nv: int, w: int, sx: int,
          is_max: bool) -> Any:
    x_arr, x_off, toff_arr, taps, c_arr, c_off, div_arr, d_off = args
    f32, i64, i32 = ir.FloatType(), ir.IntType(64), ir.IntType(32)
    vt = ir.VectorType(f32, w)
    x = builder.gep(context.make_array(sig.args[0])(context, builder, x_arr).data, [x_off])
    toff = context.make_array(sig.args[2])(context, builder, toff_arr).data
    c = builder.gep(context.make_array(sig.args[4])(context, builder, c_arr).data, [c_off])
    div = builder.gep(context.make_array(sig.args[6])(context, builder, div_arr).data, [d_off])
    even = ir.Constant(ir.VectorType(i32, w), [2 * i for i in range(w)])

    def vptr(base: Any, off: int) -> Any:
        return builder.bitcast(builder.gep(base, [ir.Constant(i64, off)]), vt.as_pointer())

    init = ir.Constant(vt, [float("-inf") if is_max else 0.0] * w)
    def step(t: Any, acc: list[Any]) -> list[Any]:
        base = builder.gep(x, [builder.load(builder.gep(toff, [t]))])
        nxt = []
        for v in range(nv):
            if sx == 1:
                xv = builder.load(vptr(base, v * w), align=4)
            else:  # stride 2: the even lanes of two consecutive vectors
                xv = builder.shuffle_vector(builder.load(vptr(base, 2 * v * w), align=4),
                                            builder.load(vptr(base, 2 * v * w + w), align=4), even)
            nxt.append(combine(builder, xv, acc[v], is_max))
        return nxt

    final = reduction_loop(builder, "pool", taps, [init] * nv, step)
    for v in range(nv):
        val = final[v] if is_max else builder.fdiv(final[v], builder.load(vptr(div, v * w), align=4))
        builder.store(val, vptr(c, v * w), align=4)
    return context.get_dummy_value()


def make_pool_row(nv: int, w: int, sx: int, is_max: bool) -> Any:
    """A numba intrinsic ``pool_row(x, x_off, toff, taps, c, c_off, div, d_off)``: ``nv`` · ``w`` outputs of a max
    (``is_max``) or average pooling, stride ``sx`` (1 or 2) along x, as the module docstring says (float32 ``x``,
    ``c``, ``div``; int64 ``toff``; a max ignores ``div``). Callable only from numba-compiled code. Raises
    ValueError for another stride."""
    if sx not in (1, 2):
        raise ValueError(f"the pooling row micro-kernel takes stride 1 or 2 along x, not {sx}")

    @intrinsic
    def pool_row(typingctx: Any, x: Any, x_off: Any, toff: Any, taps: Any, c: Any, c_off: Any, div: Any,
                 d_off: Any) -> Any:
        ip = types.intp
        sig = types.void(x, ip, toff, ip, c, ip, div, ip)
        return sig, lambda context, builder, s, args: _emit(context, builder, s, args, nv, w, sx, is_max)

    return pool_row


POOL_VECTORS = 4
"""Vectors per call: 4 running maxima or sums (64 outputs with AVX-512), and for stride 2 eight loads."""
max_row_s1, max_row_s2 = (make_pool_row(POOL_VECTORS, W, s, True) for s in (1, 2))
sum_row_s1, sum_row_s2 = (make_pool_row(POOL_VECTORS, W, s, False) for s in (1, 2))
POOL_SEGMENT = POOL_VECTORS * W
"""Outputs per call."""
