"""The stride-1 "same" pooling kernel of the CPU engine, written in LLVM IR: a run of output vectors of a max or
average pooling whose output planes are as large as its input planes (the 3×3 pad-1 poolings of Inception and
GoogLeNet modules), over a stack of whole planes taken as one flat array.

With stride 1 and equal plane sizes, every tap of the window is one fixed element offset from the output element,
the same for every output: (ky·DY − PY)·W + (kx·DX − PX). An output vector of W consecutive stack elements is then
one masked load per tap, the running max or sum in a register, one store: no bordered copy, no row loop. Which lanes
of a tap fall inside the plane (not in the window's padding, not in the row or plane beside) depends only on the
vector's position modulo the planes' period P = lcm(H·W, W) / W vectors, so the masks come from a table of P × T
bit patterns built at build time (T taps), and an average's divisors from a table of P × W. The flat passes this
replaces (``pooling_cpu_planes._batch_flat``: one loop per tap over the stack with per-element mask arrays) took
3-3.7 cycles per output; Inception-v2's 3×3 average poolings ran 3-4× onnxruntime's time.

Operands (float32 ``x``, ``c``, ``div``; int32 ``masks``; int64 ``offs``; offsets and counts in elements):
- the stack's element i at ``x[x_off + i]`` (input) and ``c[c_off + i]`` (output), 0 ≤ i < ``n``;
- output vectors v0 ≤ v < v1 (elements v·W .. v·W + W − 1, those at or past ``n`` neither read nor written);
- tap t reads element i + ``offs[t]`` where bit j of ``masks[(v mod P)·T + t]`` is set for lane j;
- the value: the max over the taps read, where a NaN never wins (``a > m ? a : m``; −inf when none is read), or
  their sum divided by ``div[(v mod P)·W + j]``.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .cpu_ir_intrinsics import vector_intrinsic
from .cpu_microkernel import W, _splat, reduction_loop


def _emit_mode(context: Any, builder: ir.IRBuilder, sig: Any, args: list[Any], w: int, is_max: bool) -> None:
    """The vector loop of one mode (max or sum)."""
    x_arr, x_off, c_arr, c_off, n, v0, v1, period, m_arr, o_arr, taps, d_arr = args[:12]
    f32, i64, i32 = ir.FloatType(), ir.IntType(64), ir.IntType(32)
    vt, mt = ir.VectorType(f32, w), ir.VectorType(ir.IntType(1), w)
    x = builder.gep(context.make_array(sig.args[0])(context, builder, x_arr).data, [x_off])
    c = builder.gep(context.make_array(sig.args[2])(context, builder, c_arr).data, [c_off])
    masks = context.make_array(sig.args[8])(context, builder, m_arr).data
    offs = context.make_array(sig.args[9])(context, builder, o_arr).data
    div = context.make_array(sig.args[11])(context, builder, d_arr).data
    load = vector_intrinsic(builder, "masked.load", w)
    store = vector_intrinsic(builder, "masked.store", w)
    fill = ir.Constant(vt, [float("-inf") if is_max else 0.0] * w)
    lanes = ir.Constant(ir.VectorType(i32, w), list(range(w)))
    wc = ir.Constant(i64, w)
    iw = ir.IntType(w)

    def vector(k: Any, _: list[Any]) -> list[Any]:
        v = builder.add(v0, k)
        base = builder.mul(v, wc)
        row = builder.srem(v, period)  # the table row of this vector's position in the planes' period
        left = builder.sub(n, base)  # elements of the stack from lane 0 on: the last vector masks its tail
        tail = builder.icmp_signed("<", lanes, _splat(builder, builder.trunc(
            builder.select(builder.icmp_signed("<", left, wc), left, wc), i32), ir.VectorType(i32, w)))
        xv = builder.gep(x, [base])

        def tap(t: Any, acc: list[Any]) -> list[Any]:
            bits = builder.load(builder.gep(masks, [builder.add(builder.mul(row, taps), t)]))
            m = builder.and_(builder.bitcast(bits if w == 32 else builder.trunc(bits, iw), mt), tail)
            ptr = builder.bitcast(builder.gep(xv, [builder.load(builder.gep(offs, [t]))]), vt.as_pointer())
            val = builder.call(load, [ptr, ir.Constant(i32, 4), m, fill])
            if is_max:  # a > m ? a : m: a NaN input never wins
                return [builder.select(builder.fcmp_ordered(">", val, acc[0]), val, acc[0])]
            return [builder.fadd(acc[0], val)]

        res = reduction_loop(builder, "stap", taps, [fill], tap)[0]
        if not is_max:
            dp = builder.bitcast(builder.gep(div, [builder.mul(row, wc)]), vt.as_pointer())
            res = builder.fdiv(res, builder.load(dp, align=4))
        builder.call(store, [res, builder.bitcast(builder.gep(c, [base]), vt.as_pointer()), ir.Constant(i32, 4),
                             tail])
        return []

    reduction_loop(builder, "svec", builder.sub(v1, v0), [], vector)


def _emit(context: Any, builder: ir.IRBuilder, sig: Any, args: list[Any], w: int) -> Any:
    """Both modes, chosen at run time by the last argument (nonzero: max)."""
    with builder.if_else(builder.icmp_signed("!=", args[12], ir.Constant(ir.IntType(64), 0))) as (is_max, is_sum):
        with is_max:
            _emit_mode(context, builder, sig, args, w, True)
        with is_sum:
            _emit_mode(context, builder, sig, args, w, False)
    return context.get_dummy_value()


def make_pool_same(w: int) -> Any:
    """A numba intrinsic ``pool_same(x, x_off, c, c_off, n, v0, v1, period, masks, offs, taps, div, is_max)``: the
    output vectors v0 ≤ v < v1 of a stride-1 "same" max (``is_max`` nonzero) or average pooling over a flat stack of
    planes, in vectors of ``w`` floats, as the module docstring says (a max ignores ``div``). ``masks`` int32 (P ×
    taps), ``offs`` int64 (taps), ``div`` float32 (P × w). Callable only from numba-compiled code. Raises ValueError
    for a vector width above 32 (the lane bits of an int32 mask)."""
    if not 1 <= w <= 32:
        raise ValueError(f"the same-window pooling kernel takes 1 to 32 lanes, not {w}")

    @intrinsic
    def pool_same(typingctx: Any, x: Any, x_off: Any, c: Any, c_off: Any, n: Any, v0: Any, v1: Any, period: Any,
                  masks: Any, offs: Any, taps: Any, div: Any, is_max: Any) -> Any:
        ip = types.intp
        sig = types.void(x, ip, c, ip, ip, ip, ip, ip, masks, offs, ip, div, ip)
        return sig, lambda context, builder, s, args: _emit(context, builder, s, args, w)

    return pool_same


pool_same = make_pool_same(W)
