"""The row-major micro-kernel of the CPU engine's fully connected layers: C[MR, NR] = X[MR, K] · Wᵀ[K, NR] with C
and X row-major and W in ``os_iyx_osv16`` panels, written in LLVM IR.

A fully connected layer y = x·Wᵀ (x (N, K) row-major, y (N, M) row-major) is the GEMM whose output rows are the
input rows: the orientation of BLAS's sgemm kernels for row-major C (and of onnxruntime's MLAS and oneDNN's brgemm
on an ``OIio``-style packed B). Per k step the kernel loads NV vectors of W output channels (W lanes each,
contiguous in the 16-channel panels of ``os_iyx_osv16``: element (m, k) at ``(m // 16) · 16K + k · 16 + m % 16``,
the packing the layout optimizer already gives fully connected weights), broadcasts MR scalars x[n, k] and issues
MR·NV fused multiply-adds into MR·NV vector accumulators that stay in registers for the whole reduction (the
structure of :mod:`.cpu_microkernel`, whose A operand is the weights and whose C rows are output channels: here the
output channels are the vector lanes, so the tile is stored as it lies, one vector per row and W channels).

Operand forms (float32, offsets in elements):
- X: element (row i, k) at ``x[x_off + min(i, nrows − 1) · ldx + k]`` (rows past ``nrows`` re-read the last one;
  they are never stored).
- W: column j of the tile (output channel c0 + j), step k, at ``w[w_off + (j // 16) · wstride + k · 16 + j % 16]``
  (``wstride`` = 16 · K: the next panel). The caller makes the panels readable up to the tile's last column (the
  packed layout rounds M up to 16; NR is a multiple of 16 or divides it).
- C: row i at ``c[c_off + i · ldc : + NR]``; rows ``< nrows`` and columns ``< ncols`` are written (a whole tile
  with plain stores, an edge tile with masked ones).
- Bias: ``bias[bias_off + j]`` added when ``has_bias`` (the accumulators start from it), readable for all NR
  columns (the caller pads it).
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .cpu_ir_intrinsics import vector_intrinsic
from .cpu_microkernel import PANEL, W, _splat, reduction_loop, row_store, tile_shape


def _emit(context: Any, builder: ir.IRBuilder, sig: Any, args: list[Any], mr: int, nv: int, w: int) -> Any:
    (x_arr, x_off, ldx, nrows, w_arr, w_off, wstride, k_len, c_arr, c_off, ldc, ncols, bias_arr, bias_off,
     has_bias) = args
    f32, i64, i32 = ir.FloatType(), ir.IntType(64), ir.IntType(32)
    vt = ir.VectorType(f32, w)
    x = builder.gep(context.make_array(sig.args[0])(context, builder, x_arr).data, [x_off])
    wp = builder.gep(context.make_array(sig.args[4])(context, builder, w_arr).data, [w_off])
    c = builder.gep(context.make_array(sig.args[8])(context, builder, c_arr).data, [c_off])
    bias = builder.gep(context.make_array(sig.args[12])(context, builder, bias_arr).data, [bias_off])
    fma = vector_intrinsic(builder, "fmuladd", w)
    mstore = vector_intrinsic(builder, "masked.store", w)
    zero = ir.Constant(vt, [0.0] * w)

    def vptr(base: Any, off: Any) -> Any:
        return builder.bitcast(builder.gep(base, [off]), vt.as_pointer())

    # the columns' panel offsets: vector v covers columns v·w .. v·w + w − 1, inside panel (v·w) // 16
    col_off = [builder.add(builder.mul(ir.Constant(i64, (v * w) // PANEL), wstride), ir.Constant(i64, (v * w) % PANEL))
               for v in range(nv)]
    last = builder.sub(nrows, ir.Constant(i64, 1))
    row_off = [builder.mul(builder.select(builder.icmp_signed("<", ir.Constant(i64, i), nrows), ir.Constant(i64, i),
                                          last), ldx) for i in range(mr)]
    use_bias = builder.icmp_signed("!=", has_bias, ir.Constant(i64, 0))
    init = [builder.select(use_bias, builder.load(vptr(bias, ir.Constant(i64, v * w)), align=4), zero)
            for v in range(nv)]

    def step(k: Any, acc: list[Any]) -> list[Any]:
        w_row = builder.gep(wp, [builder.mul(k, ir.Constant(i64, PANEL))])
        wv = [builder.load(vptr(w_row, col_off[v]), align=4) for v in range(nv)]
        x_k = builder.gep(x, [k])
        nxt: list[Any] = []
        for i in range(mr):
            xi = _splat(builder, builder.load(builder.gep(x_k, [row_off[i]])), vt)
            nxt.extend(builder.call(fma, [xi, wv[v], acc[i * nv + v]]) for v in range(nv))
        return nxt

    final = reduction_loop(builder, "fc", k_len, [init[t % nv] for t in range(mr * nv)], step)

    whole = builder.and_(builder.icmp_signed(">=", nrows, ir.Constant(i64, mr)),
                         builder.icmp_signed(">=", ncols, ir.Constant(i64, nv * w)))
    with builder.if_else(whole) as (then, otherwise):
        with then:
            for i in range(mr):
                for v in range(nv):
                    off = builder.add(builder.mul(ir.Constant(i64, i), ldc), ir.Constant(i64, v * w))
                    builder.store(final[i * nv + v], vptr(c, off), align=4)
        with otherwise:
            lanes = [ir.Constant(ir.VectorType(i64, w), [v * w + j for j in range(w)]) for v in range(nv)]
            cmask = [builder.icmp_signed("<", lanes[v], _splat(builder, ncols, ir.VectorType(i64, w)))
                     for v in range(nv)]
            for i in range(mr):
                row_ok = builder.icmp_signed("<", ir.Constant(i64, i), nrows)
                for v in range(nv):
                    off = builder.add(builder.mul(ir.Constant(i64, i), ldc), ir.Constant(i64, v * w))
                    ptr = vptr(c, off)
                    row_store(builder, row_ok, lambda f=final[i * nv + v], q=ptr, m=cmask[v]: builder.call(
                        mstore, [f, q, ir.Constant(i32, 4), m]))
    return context.get_dummy_value()


def make_micro_kernel_fc(mr: int, nv: int, w: int) -> Any:
    """A numba intrinsic ``micro_fc(x, x_off, ldx, nrows, w, w_off, wstride, k, c, c_off, ldc, ncols, bias,
    bias_off, has_bias)`` computing one tile of ``mr`` rows × ``nv`` · ``w`` columns as the module docstring says
    (float32 1-D arrays, int64 offsets, counts and flag). Callable only from numba-compiled code; the caller
    guarantees the bounds (no checks). Raises ValueError unless nv · w is a multiple of 16 or divides it (a vector
    never crosses a weight panel)."""
    if (nv * w) % PANEL and PANEL % (nv * w):
        raise ValueError(f"{nv} vectors of {w} floats must tile the {PANEL}-channel weight panels")

    @intrinsic
    def micro_fc(typingctx: Any, x: Any, x_off: Any, ldx: Any, nrows: Any, wt: Any, w_off: Any, wstride: Any,
                 k: Any, c: Any, c_off: Any, ldc: Any, ncols: Any, bias: Any, bias_off: Any, has_bias: Any) -> Any:
        ip = types.intp
        sig = types.void(x, ip, ip, ip, wt, ip, ip, ip, c, ip, ip, ip, bias, ip, ip)
        return sig, lambda context, builder, s, args: _emit(context, builder, s, args, mr, nv, w)

    return micro_fc


FC_MR, FC_NV = tile_shape(W)
FC_NR = FC_NV * W  # output channels per tile: 32 with AVX-512, 16 with AVX2, 8 with SSE
micro_kernel_fc = make_micro_kernel_fc(FC_MR, FC_NV, W)
