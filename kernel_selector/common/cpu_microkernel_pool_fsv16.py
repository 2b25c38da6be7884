"""The b_fs_yx_fsv16 pooling micro-kernel of the CPU engine, written in LLVM IR: NV output pixels of 16 channels each,
the running max or sum of every pixel in a ``<16 x float>`` register across the window's taps.

In b_fs_yx_fsv16 a pixel's 16 channels are contiguous, so a tap of a pixel is one vector load and the window is a
reduction over a table of tap offsets (``toff``: (ky, kx) → ky·DY·(y pitch) + kx·DX·16, the taps inside the image
only), with the pixels ``step`` floats apart (SX · 16). numba's loops over 16 lanes are unrolled before LLVM's loop
vectorizer sees them and its SLP vectorizer then keeps the lanes scalar, since it cannot prove that the output does
not overlap the input (``o[i] = max(o[i], x[i])`` and ``o[j] = max(a[j], b[j])`` on 16 lanes compiled to 16
``vmaxss`` each: pooling_cpu_fsv16 ran SqueezeNet b8's 3×3 stride-2 pooling of 8 × 128 × 55² in 1.27 ms, this
kernel in about 0.1 ms on the 2-core Zen 5 VM). Written here the loads, max / add and stores are vectors by
construction. The order is oneDNN's and MLAS's NCHWc pooling (a channel block's window in registers).

Operands (float32 1-D arrays, int64 offsets and counts):
- ``x``: tap t of pixel j reads ``x[x_off + toff[t] + j·step :][:16]`` (offsets may be negative as long as the
  address is inside ``x``);
- ``c[c_off + 16·j :][:16]`` for j < NV: the max over the ``taps`` taps, where an input NaN never wins (``a > m ?
  a : m``, −inf when no tap is a number or ``taps`` is 0), or the sum divided by ``div[d_off + j]`` (a scalar per
  pixel, :func:`~kernel_selector.kernels.pooling.pooling_kernel_cpu_fsv16.average_divisors`).
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .cpu_microkernel import _splat, reduction_loop
from .cpu_microkernel_pool import combine

LANES = 16
"""Channels per pixel in b_fs_yx_fsv16: one ``<16 x float>`` (two 256-bit registers where AVX-512 is missing)."""


def _emit(context: Any, builder: ir.IRBuilder, sig: Any, args: list[Any], nv: int, is_max: bool) -> Any:
    x_arr, x_off, toff_arr, taps, step, c_arr, c_off, div_arr, d_off = args
    f32, i64 = ir.FloatType(), ir.IntType(64)
    vt = ir.VectorType(f32, LANES)
    x = builder.gep(context.make_array(sig.args[0])(context, builder, x_arr).data, [x_off])
    toff = context.make_array(sig.args[2])(context, builder, toff_arr).data
    c = builder.gep(context.make_array(sig.args[5])(context, builder, c_arr).data, [c_off])
    div = builder.gep(context.make_array(sig.args[7])(context, builder, div_arr).data, [d_off])
    pix = [builder.mul(step, ir.Constant(i64, j)) for j in range(nv)]
    init = ir.Constant(vt, [float("-inf") if is_max else 0.0] * LANES)

    def tap(t: Any, acc: list[Any]) -> list[Any]:
        base = builder.gep(x, [builder.load(builder.gep(toff, [t]))])
        nxt = []
        for j in range(nv):
            xv = builder.load(builder.bitcast(builder.gep(base, [pix[j]]), vt.as_pointer()), align=4)
            nxt.append(combine(builder, xv, acc[j], is_max))
        return nxt

    final = reduction_loop(builder, "poolpx", taps, [init] * nv, tap)
    for j in range(nv):
        val = final[j]
        if not is_max:
            val = builder.fdiv(val, _splat(builder, builder.load(builder.gep(div, [ir.Constant(i64, j)])), vt))
        builder.store(val, builder.bitcast(builder.gep(c, [ir.Constant(i64, LANES * j)]), vt.as_pointer()), align=4)
    return context.get_dummy_value()


def make_pool_pixels(nv: int, is_max: bool) -> Any:
    """A numba intrinsic ``pool_pixels(x, x_off, toff, taps, step, c, c_off, div, d_off)``: ``nv`` output pixels of
    a max (``is_max``) or average pooling of b_fs_yx_fsv16 data, as the module docstring says (float32 ``x``, ``c``,
    ``div``; int64 ``toff``; a max ignores ``div``). Callable only from numba-compiled code. Raises ValueError for
    ``nv`` < 1."""
    if nv < 1:
        raise ValueError(f"the fsv16 pooling micro-kernel needs at least one pixel, got {nv}")

    @intrinsic
    def pool_pixels(typingctx: Any, x: Any, x_off: Any, toff: Any, taps: Any, step: Any, c: Any, c_off: Any,
                    div: Any, d_off: Any) -> Any:
        ip = types.intp
        sig = types.void(x, ip, toff, ip, ip, c, ip, div, ip)
        return sig, lambda context, builder, s, args: _emit(context, builder, s, args, nv, is_max)

    return pool_pixels


PIXELS = 4
"""Pixels per call of the wide instances: 4 running maxima or sums in registers, 4 loads per tap."""
max_pixels, sum_pixels = make_pool_pixels(PIXELS, True), make_pool_pixels(PIXELS, False)
max_pixel, sum_pixel = make_pool_pixels(1, True), make_pool_pixels(1, False)
