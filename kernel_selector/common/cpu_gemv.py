"""The matrix-vector product of the CPU engine's convolutions on one pixel: y[0:16] = A_panel (16 × K) · x, in LLVM IR.

A 1×1 convolution of a 1×1 image (the two layers of every squeeze-and-excitation block, a classifier written as a
convolution) is a GEMV: each weight is read once and used once. The GEMM micro-kernel would spend 31 of its 32
columns on nothing (SE blocks of MobileNetV3: 50 µs a layer for 0.08 MFLOP). Here the A operand is one
``os_iyx_osv16`` weight panel (16 output channels, element (i, k) at ``a[a_off + k·16 + i]``, so each k is one
contiguous 64-byte row), streamed once: per k, 16/W vector loads of the panel row, one broadcast of x[k], 16/W
FMAs, into U independent accumulator sets (k mod U) so that the FMA latency does not serialize the loop; the sets
are summed at the end and the 16 sums stored to ``y[y_off:y_off + 16]``. Same technique as the micro-kernel
(:mod:`.cpu_microkernel`: numba cannot keep vector accumulators in registers, an ``@intrinsic`` emits the loop);
the panel layout is oneDNN's and clDNN's ``os_iyx_osv16``, the unrolled accumulators BLAS's sgemv kernels'.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .cpu_ir_intrinsics import vector_intrinsic
from .cpu_microkernel import PANEL, W, _splat

UNROLL = 4  # accumulator sets: FMA latency 4 cycles, 2 FMA ports


def _emit_gemv(context: Any, builder: ir.IRBuilder, sig: Any, args: list[Any], w: int) -> Any:
    a_arr, a_off, x_arr, x_off, ldx, k_len, y_arr, y_off = args
    f32, i64 = ir.FloatType(), ir.IntType(64)
    vt = ir.VectorType(f32, w)
    nvec = PANEL // w
    a = builder.gep(context.make_array(sig.args[0])(context, builder, a_arr).data, [a_off])
    x = builder.gep(context.make_array(sig.args[2])(context, builder, x_arr).data, [x_off])
    y = builder.gep(context.make_array(sig.args[6])(context, builder, y_arr).data, [y_off])
    fma = vector_intrinsic(builder, "fmuladd", w)
    zero = ir.Constant(vt, [0.0] * w)

    def vload(base: Any, off: Any) -> Any:
        return builder.load(builder.bitcast(builder.gep(base, [off]), vt.as_pointer()), align=4)

    def step(kk: Any, accs: list[Any]) -> list[Any]:
        xv = _splat(builder, builder.load(builder.gep(x, [builder.mul(kk, ldx)])), vt)
        row = builder.gep(a, [builder.mul(kk, ir.Constant(i64, PANEL))])
        return [builder.call(fma, [vload(row, ir.Constant(i64, v * w)), xv, accs[v]]) for v in range(nvec)]

    # main loop: UNROLL k steps per iteration, each into its own accumulator set
    n_main = builder.mul(builder.sdiv(k_len, ir.Constant(i64, UNROLL)), ir.Constant(i64, UNROLL))
    entry = builder.block
    loop = builder.append_basic_block("gemv.loop")
    after = builder.append_basic_block("gemv.after")
    builder.cbranch(builder.icmp_signed(">", n_main, ir.Constant(i64, 0)), loop, after)
    builder.position_at_end(loop)
    k = builder.phi(i64)
    k.add_incoming(ir.Constant(i64, 0), entry)
    sets = []
    for _ in range(UNROLL):
        ph = [builder.phi(vt) for _ in range(nvec)]
        for p in ph:
            p.add_incoming(zero, entry)
        sets.append(ph)
    new_sets = [step(builder.add(k, ir.Constant(i64, u)), sets[u]) for u in range(UNROLL)]
    k1 = builder.add(k, ir.Constant(i64, UNROLL))
    tail_blk = builder.block
    k.add_incoming(k1, tail_blk)
    for ph, nv in zip(sets, new_sets):
        for p, q in zip(ph, nv):
            p.add_incoming(q, tail_blk)
    builder.cbranch(builder.icmp_signed("<", k1, n_main), loop, after)
    builder.position_at_end(after)
    merged = []
    for u in range(UNROLL):
        for v in range(nvec):
            p = builder.phi(vt)
            p.add_incoming(zero, entry)
            p.add_incoming(new_sets[u][v], tail_blk)
            merged.append(p)
    total = [merged[v] for v in range(nvec)]
    for u in range(1, UNROLL):
        total = [builder.fadd(total[v], merged[u * nvec + v]) for v in range(nvec)]
    # remainder: k_len mod UNROLL steps into the total
    rem_entry = builder.block
    rem = builder.append_basic_block("gemv.rem")
    done = builder.append_basic_block("gemv.done")
    builder.cbranch(builder.icmp_signed("<", n_main, k_len), rem, done)
    builder.position_at_end(rem)
    kr = builder.phi(i64)
    kr.add_incoming(n_main, rem_entry)
    tp = [builder.phi(vt) for _ in range(nvec)]
    for p, t in zip(tp, total):
        p.add_incoming(t, rem_entry)
    tn = step(kr, tp)
    kr1 = builder.add(kr, ir.Constant(i64, 1))
    rem_blk = builder.block
    kr.add_incoming(kr1, rem_blk)
    for p, q in zip(tp, tn):
        p.add_incoming(q, rem_blk)
    builder.cbranch(builder.icmp_signed("<", kr1, k_len), rem, done)
    builder.position_at_end(done)
    outs = []
    for v in range(nvec):  # every phi first: LLVM wants them grouped at the top of the block (nvec > 1 on AVX2)
        p = builder.phi(vt)
        p.add_incoming(total[v], rem_entry)
        p.add_incoming(tn[v], rem_blk)
        outs.append(p)
    for v, p in enumerate(outs):
        builder.store(p, builder.bitcast(builder.gep(y, [ir.Constant(i64, v * w)]), vt.as_pointer()), align=4)
    return context.get_dummy_value()


@intrinsic
def gemv_panel(typingctx: Any, a: Any, a_off: Any, x: Any, x_off: Any, ldx: Any, k: Any, y: Any,
               y_off: Any) -> Any:
    """``gemv_panel(a, a_off, x, x_off, ldx, k, y, y_off)``: y[y_off + i] = Σ_k a[a_off + k·16 + i] ·
    x[x_off + k·ldx] for i < 16 (float32 1-D arrays, int64 offsets and counts; k ≥ 0). Callable only from
    numba-compiled code; the caller guarantees the bounds (no checks)."""
    ip = types.intp
    sig = types.void(a, ip, x, ip, ip, ip, y, ip)
    return sig, lambda context, builder, s, args: _emit_gemv(context, builder, s, args, W)
