"""The pooling plane kernel of the CPU engine, written in LLVM IR: one whole output plane of a max or average
pooling, output row by output row, read straight from the input rows where they lie, tails and borders by masked
vector loads and stores.

The row form of ``pooling_cpu_planes`` (``_batch_rows``) reduced the KY input rows of an output row into a
bordered scratch row with numba loops, then took the KX taps at stride SX in another; over rows of 13-111 columns
those loops ran much of their work in their scalar remainders (a 55-column row is 3 vectors and 7 scalars), and
SqueezeNet's 3×3 stride-2 max poolings ran 1.3-2.2× onnxruntime's time at batch 8. Here an output row is ⌈OW / W⌉
vectors; per vector, per window row ky and per tap kx one masked load of the input columns the vector's lanes read
(stride 2: a load of 2·W columns and its even lanes, LLVM's ``shufflevector``), the running max or sum in a
register, then one masked store. The lanes a load would take from left or right of the input row (the window's
padding) are masked off and read as −inf (max) or 0 (sum), so no bordered copy is made; a window row above or
below the plane masks every lane (nothing is read). The column masks depend only on the vector and the tap, so they
are made once per vector, outside the loop over window rows. The whole plane is one call: numba's loop and call
overhead per output row cost as much as a row's work on 7-28 column planes. The separable order of oneDNN's and
Halide's pooling schedules is not used: a window of 3 × 3 taps costs 9 loads (18 at stride 2) per W outputs, fewer
instructions than the two passes through memory it replaces.

Operands (float32 1-D ``x``, ``c`` and ``div``, int64 offsets and counts in elements):
- input row iy (0 ≤ iy < ``h``), column j (0 ≤ j < ``width``) at ``x[x_off + iy · ldx + j]`` (unit x pitch);
- output (oy, o) for oy < ``oh``, o < ``ow`` at ``c[c_off + oy · ldc + o]``; its window reads rows
  ``oy · sy − py + ky · dy`` for ky < ``ky`` and columns ``o · SX − px + kx`` for kx < KX; rows and columns outside
  the input do not count;
- the value: the max over the window, where an input NaN never wins (``a > m ? a : m``, as the plane passes and the
  element-wise table's max pooling; −inf when no tap is a number), or the sum over the window (rows outer, taps
  inner) divided by ``div[oy · ow + o]`` (an average's divisor).
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .cpu_ir_intrinsics import vector_intrinsic
from .cpu_microkernel import W, _splat, reduction_loop


def _emit_mode(context: Any, builder: ir.IRBuilder, sig: Any, args: list[Any], w: int, sx: int, kx_n: int,
               is_max: bool) -> None:
    """The plane loop of one mode (max or sum)."""
    x_arr, x_off, ldx, h, width, c_arr, c_off, ldc, oh, ow, sy, py, ky_n, dy, px, div_arr = args[:16]
    f32, i64, i32 = ir.FloatType(), ir.IntType(64), ir.IntType(32)
    vt = ir.VectorType(f32, w)
    lanes_in = sx * w  # input columns one tap's load covers
    lt, it = ir.VectorType(f32, lanes_in), ir.VectorType(i32, lanes_in)
    mt = ir.VectorType(ir.IntType(1), lanes_in)
    x = builder.gep(context.make_array(sig.args[0])(context, builder, x_arr).data, [x_off])
    c = builder.gep(context.make_array(sig.args[5])(context, builder, c_arr).data, [c_off])
    div = context.make_array(sig.args[15])(context, builder, div_arr).data
    load_in = vector_intrinsic(builder, "masked.load", lanes_in)
    load_out = vector_intrinsic(builder, "masked.load", w)
    store = vector_intrinsic(builder, "masked.store", w)
    fill = float("-inf") if is_max else 0.0
    init, fill_in = ir.Constant(vt, [fill] * w), ir.Constant(lt, [fill] * lanes_in)
    cols = ir.Constant(it, list(range(lanes_in)))
    outs = ir.Constant(ir.VectorType(i32, w), list(range(w)))
    even = ir.Constant(ir.VectorType(i32, w), [2 * i for i in range(w)])
    width32 = _splat(builder, builder.trunc(width, i32), it)
    n_vec = builder.sdiv(builder.add(ow, ir.Constant(i64, w - 1)), ir.Constant(i64, w))
    zero64 = ir.Constant(i64, 0)

    def out_row(oy: Any, _: list[Any]) -> list[Any]:
        y0 = builder.sub(builder.mul(oy, sy), py)  # the input row of tap ky = 0
        crow = builder.gep(c, [builder.mul(oy, ldc)])

        def vector(vi: Any, _: list[Any]) -> list[Any]:
            o0 = builder.mul(vi, ir.Constant(i64, w))
            s = builder.sub(builder.mul(o0, ir.Constant(i64, sx)), px)  # the column lane 0 of tap 0 reads
            masks = []
            for kx in range(kx_n):  # lanes inside [0, width), per tap: the same for every input row
                pos = builder.add(cols, _splat(builder, builder.trunc(builder.add(s, ir.Constant(i64, kx)), i32), it))
                masks.append(builder.and_(builder.icmp_signed(">=", pos, ir.Constant(it, [0] * lanes_in)),
                                          builder.icmp_signed("<", pos, width32)))

            def tap_row(ky: Any, acc: list[Any]) -> list[Any]:
                iy = builder.add(y0, builder.mul(ky, dy))
                inside = builder.and_(builder.icmp_signed(">=", iy, zero64), builder.icmp_signed("<", iy, h))
                on = _splat(builder, inside, mt)  # a padding row: every lane off, nothing read
                base = builder.gep(x, [builder.add(builder.mul(iy, ldx), s)])
                m = acc[0]
                for kx in range(kx_n):
                    ptr = builder.bitcast(builder.gep(base, [ir.Constant(i64, kx)]), lt.as_pointer())
                    v = builder.call(load_in, [ptr, ir.Constant(i32, 4), builder.and_(masks[kx], on), fill_in])
                    if sx == 2:
                        v = builder.shuffle_vector(v, v, even)
                    if is_max:  # a > m ? a : m: a NaN input never wins
                        m = builder.select(builder.fcmp_ordered(">", v, m), v, m)
                    else:
                        m = builder.fadd(m, v)
                return [m]

            res = reduction_loop(builder, "ptap", ky_n, [init], tap_row)[0]
            keep = builder.icmp_signed("<", outs, _splat(builder, builder.trunc(builder.sub(ow, o0), i32),
                                                          ir.VectorType(i32, w)))
            if not is_max:
                dp = builder.bitcast(builder.gep(div, [builder.add(builder.mul(oy, ow), o0)]), vt.as_pointer())
                res = builder.fdiv(res, builder.call(load_out, [dp, ir.Constant(i32, 4), keep,
                                                                ir.Constant(vt, [1.0] * w)]))
            builder.call(store, [res, builder.bitcast(builder.gep(crow, [o0]), vt.as_pointer()), ir.Constant(i32, 4),
                                 keep])
            return []

        reduction_loop(builder, "pvec", n_vec, [], vector)
        return []

    reduction_loop(builder, "prow", oh, [], out_row)


def _emit(context: Any, builder: ir.IRBuilder, sig: Any, args: list[Any], w: int, sx: int, kx_n: int) -> Any:
    """Both modes, chosen at run time by the last argument (nonzero: max)."""
    with builder.if_else(builder.icmp_signed("!=", args[16], ir.Constant(ir.IntType(64), 0))) as (is_max, is_sum):
        with is_max:
            _emit_mode(context, builder, sig, args, w, sx, kx_n, True)
        with is_sum:
            _emit_mode(context, builder, sig, args, w, sx, kx_n, False)
    return context.get_dummy_value()


def make_pool_plane(w: int, sx: int, kx_n: int) -> Any:
    """A numba intrinsic ``pool_plane(x, x_off, ldx, h, width, c, c_off, ldc, oh, ow, sy, py, ky, dy, px, div,
    is_max)``: one output plane of a max (``is_max`` nonzero) or average pooling with ``kx_n`` taps along x at
    dilation 1 and stride ``sx`` (1 or 2), in vectors of ``w`` floats, as the module docstring says (a max ignores
    ``div``). Callable only from numba-compiled code. Raises ValueError for another stride or a tap count outside
    1..8."""
    if sx not in (1, 2):
        raise ValueError(f"the pooling row kernel takes stride 1 or 2 along x, not {sx}")
    if not 1 <= kx_n <= 8:
        raise ValueError(f"the pooling row kernel takes 1 to 8 taps along x, not {kx_n}")

    @intrinsic
    def pool_plane(typingctx: Any, x: Any, x_off: Any, ldx: Any, h: Any, width: Any, c: Any, c_off: Any, ldc: Any,
                   oh: Any, ow: Any, sy: Any, py: Any, ky: Any, dy: Any, px: Any, div: Any, is_max: Any) -> Any:
        ip = types.intp
        sig = types.void(x, ip, ip, ip, ip, c, ip, ip, ip, ip, ip, ip, ip, ip, ip, div, ip)
        return sig, lambda context, builder, s, args: _emit(context, builder, s, args, w, sx, kx_n)

    return pool_plane


ROW_TAPS = (2, 3)
"""Window widths along x with a compiled row kernel (every max and average pooling of the zoo: 3×3 and 2×2)."""
pool_plane = {(sx, kx): make_pool_plane(W, sx, kx) for sx in (1, 2) for kx in ROW_TAPS}
pool_plane_s1_k2, pool_plane_s1_k3 = pool_plane[1, 2], pool_plane[1, 3]
pool_plane_s2_k2, pool_plane_s2_k3 = pool_plane[2, 2], pool_plane[2, 3]
