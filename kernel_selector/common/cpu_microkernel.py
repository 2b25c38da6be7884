"""The register-tiled GEMM micro-kernel of the CPU engine: C[MR, NR] = A[MR, K] · B[K, NR], written in LLVM IR.

The oneDNN / BLIS structure (Goto & van de Geijn, "Anatomy of high-performance matrix multiplication", ACM TOMS
2008; oneDNN's ``jit_avx512_common_gemm_f32`` / ``brgemm`` micro-kernels): MR×NV accumulators, each an SIMD vector
of W floats, live in vector registers for the whole reduction; per k step the kernel loads NV vectors of B (one row
of the tile, W·NV = NR consecutive columns), broadcasts MR scalars of A, and issues MR·NV fused multiply-adds.

Why IR and not a numba loop: numba has no vector type, and LLVM keeps neither a numba array nor a tuple of
accumulators in registers (a plain triple loop ran at 11 GFLOP/s, no vector FMA at all). The kernel is a numba
``@intrinsic`` that emits the loop with ``<W x float>`` phi nodes and ``llvm.fmuladd`` (an FMA where the CPU has one),
so the register allocation is LLVM's and the instruction choice is the host's (AVX-512: zmm; AVX2: ymm; SSE: xmm).
Measured on the 2-core Zen 5 VM, a 256×3136×576 product in packed panels: 200-210 GFLOP/s against numpy's
OpenBLAS sgemm 140-185 in the same process (``benchmarks/cpu_kernels.py``).

Operand forms (all float32, offsets in elements):
- A: ``os_iyx_osv16`` weight panels: element (i, k) of the tile at ``a[a_off + k * 16 + i]`` (16 rows per panel,
  MR divides 16; a tile never crosses a panel).
- B: row k of the tile at ``b[b_off + k * ldb : + NR]``; columns at or past ``ncols`` are never read (masked loads),
  so a tile may end at the end of a buffer.
- C: row i at ``c[c_off + i * ldc : + NR]``; only rows ``row_lo <= i < row_hi`` and columns ``< ncols`` are written
  (masked stores): the caller clips a tile to a group's rows and to the matrix's last columns.
- The masks cost: a whole tile (``ncols >= NR``, ``row_lo <= 0``, ``row_hi >= MR``) branches to a copy of the code
  with plain vector loads and stores; only edge tiles run the masked form (AMD's AVX2 ``vmaskmovps`` in the loop
  halved its rate). Before the loop the tile prefetches its MR rows of C and of the residual.

The epilogue runs on the registers before the store (a separate pass over the tile cost as much as the GEMM for
K = 64: 245 → 103 GFLOP/s), in the order of the common fused chains (conv + bias [+ relu] [+ residual] [+ relu]):
``+ bias[bias_off + i]`` when ``bias_off >= 0``; clamp to ``[clamp[0], clamp[1]]`` when ``flags & 1``;
``+ res[res_off + i * ldr + j]`` when ``res_off >= 0``; clamp to ``[clamp[2], clamp[3]]`` when ``flags & 2``.
Two fake quantizations (a QDQ pair, onnx_ops/quantization.py: ``clamp(rint(a x + b), lo, hi) * c + d``, round half
to even) with their six parameters at ``clamp[4:10]`` and ``clamp[10:16]``: after the first clamp when ``flags & 8``,
after the second when ``flags & 16``; these run in branches (a select would cost their 12 vector ops on every tile of
every convolution). A QDQ model's residual block, ``conv → FQ → + shortcut → relu → FQ``, is bias, FQ1, residual,
clamp 2, FQ2 (as a separate pass over 16-column spans the chain cost an int8 ResNet-50 on the CPU engine 100 of its
230 ms).
With ``flags & 256`` (:data:`SILU`) a SiLU, x / (1 + e^−x), runs after the first fake quantization and before the
residual, in a branch (:func:`_exp_vector`: the Cephes exponential of ``cpu_fastmath.exp_f32`` in vector IR); with
``flags & 512`` (:data:`HSWISH`) a HardSwish there.
With ``flags & 32`` (an edge tile of a packed B, whose rows are NR floats however few columns are valid) the loop
loads B plainly and only C and the residual are masked (the last, 1-column panel of a 7×7 image had cost as much as
two whole ones). With ``flags & 4`` the accumulators start from the stored C tile instead of zero: the
caller splits a long K into cache-sized blocks (KC) and applies the epilogue on the last one only.
Clamps are ``llvm.maxnum`` / ``llvm.minnum`` (C ``fmax`` / ``fmin``: a NaN becomes the bound, as the element-wise
table's relu and clamp define it).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .cpu_ir_intrinsics import prefetch, vector_intrinsic

PANEL = 16  # rows per os_iyx_osv16 weight panel: the A operand's k stride


def host_vector_floats() -> int:
    """float32 lanes of the widest SIMD vector the numba target has: 16 with AVX-512F, 8 with AVX2, else 4. Honours
    ``NUMBA_CPU_FEATURES`` (numba compiles for those) and otherwise asks LLVM for the host's features."""
    feats = os.environ.get("NUMBA_CPU_FEATURES", "")
    if not feats:
        from llvmlite import binding

        feats = binding.get_host_cpu_features().flatten()
    on = {f[1:] for f in feats.split(",") if f.startswith("+")}
    if "avx512f" in on:
        return 16
    return 8 if "avx2" in on else 4


def tile_shape(w: int) -> tuple[int, int]:
    """(MR, NV) for a vector of ``w`` floats: MR·NV accumulators plus NV B vectors and one broadcast within the
    register file (AVX-512: 32 registers, 8×2 → 16 + 2 + 1; AVX2: 16 registers, 4×2 → 8 + 2 + 1, since 4×3
    (12 + 3 + 1, every register) spilled in LLVM's loop on a Zen 4 without AVX-512; SSE: 4×2)."""
    return {16: (8, 2), 8: (4, 2)}.get(w, (4, 2))


W = host_vector_floats()
MR, NV = tile_shape(W)
NR = W * NV  # columns per tile


def _splat(builder: ir.IRBuilder, val: Any, vt: ir.VectorType) -> Any:
    """A vector of type ``vt`` with every lane ``val``."""
    i32 = ir.IntType(32)
    one = builder.insert_element(ir.Constant(vt, ir.Undefined), val, ir.Constant(i32, 0))
    return builder.shuffle_vector(one, ir.Constant(vt, ir.Undefined),
                                  ir.Constant(ir.VectorType(i32, vt.count), [0] * vt.count))


def reduction_loop(builder: ir.IRBuilder, name: str, k_len: Any, init: list[Any],
                   step: Any) -> list[Any]:
    """``for k in range(k_len): acc = step(k, acc)`` with ``acc`` starting at the vectors ``init``: the micro-kernels'
    K loop, the accumulators as phi nodes so that LLVM keeps them in registers. Returns the accumulators after the
    loop (``init`` when ``k_len`` <= 0); the builder is then past the loop."""
    i64 = ir.IntType(64)
    entry = builder.block
    loop = builder.append_basic_block(f"{name}.loop")
    done = builder.append_basic_block(f"{name}.done")
    builder.cbranch(builder.icmp_signed(">", k_len, ir.Constant(i64, 0)), loop, done)
    builder.position_at_end(loop)
    k = builder.phi(i64)
    k.add_incoming(ir.Constant(i64, 0), entry)
    acc = []
    for v0 in init:
        p = builder.phi(v0.type)
        p.add_incoming(v0, entry)
        acc.append(p)
    nxt = step(k, acc)
    k1 = builder.add(k, ir.Constant(i64, 1))
    tail = builder.block
    k.add_incoming(k1, tail)
    for p, q in zip(acc, nxt):
        p.add_incoming(q, tail)
    builder.cbranch(builder.icmp_signed("<", k1, k_len), loop, done)
    builder.position_at_end(done)
    final = []
    for v0, q in zip(init, nxt):
        p = builder.phi(v0.type)
        p.add_incoming(v0, entry)
        p.add_incoming(q, tail)
        final.append(p)
    return final


def _emit_micro(context: Any, builder: ir.IRBuilder, sig: Any, args: list[Any], mr: int, nv: int, w: int,
                indirect: bool = False) -> Any:
    if indirect:  # B row k at b[b_off + koff[koff_off + k]] (one more argument than the strided form)
        (a_arr, a_off, b_arr, b_off, koff_arr, koff_off, c_arr, c_off, ldc, k_len, ncols, row_lo, row_hi, bias_arr,
         bias_off, r_arr, r_off, ldr, clamp_arr, flags) = args
        koff = builder.gep(context.make_array(sig.args[4])(context, builder, koff_arr).data, [koff_off])
        shift = 1
    else:
        (a_arr, a_off, b_arr, b_off, ldb, c_arr, c_off, ldc, k_len, ncols, row_lo, row_hi, bias_arr, bias_off, r_arr,
         r_off, ldr, clamp_arr, flags) = args
        shift = 0
    f32, i64, i32 = ir.FloatType(), ir.IntType(64), ir.IntType(32)
    vt, mt = ir.VectorType(f32, w), ir.VectorType(ir.IntType(1), w)
    a = builder.gep(context.make_array(sig.args[0])(context, builder, a_arr).data, [a_off])
    b = builder.gep(context.make_array(sig.args[2])(context, builder, b_arr).data, [b_off])
    c = builder.gep(context.make_array(sig.args[5 + shift])(context, builder, c_arr).data, [c_off])
    bias = context.make_array(sig.args[12 + shift])(context, builder, bias_arr).data
    res = context.make_array(sig.args[14 + shift])(context, builder, r_arr).data
    clamp = context.make_array(sig.args[17 + shift])(context, builder, clamp_arr).data
    fma = vector_intrinsic(builder, "fmuladd", w)
    mload = vector_intrinsic(builder, "masked.load", w)
    mstore = vector_intrinsic(builder, "masked.store", w)
    zero = ir.Constant(vt, [0.0] * w)
    lanes = ir.Constant(ir.VectorType(i64, w), list(range(w)))
    col_mask = [builder.icmp_signed("<", lanes, _splat(builder, builder.sub(ncols, ir.Constant(i64, v * w)),
                                                       ir.VectorType(i64, w))) for v in range(nv)]
    # accumulate mode (flags & 4): the accumulators start from C (a later K block of the same tile)
    accumulate = builder.icmp_signed("!=", builder.and_(flags, ir.Constant(i64, 4)), ir.Constant(i64, 0))
    every = ir.Constant(mt, [1] * w)

    def vptr(base: Any, off: Any) -> Any:
        return builder.bitcast(builder.gep(base, [off]), vt.as_pointer())

    def row_ok(i: int) -> Any:
        ii = ir.Constant(i64, i)
        return builder.and_(builder.icmp_signed("<=", row_lo, ii), builder.icmp_signed("<", ii, row_hi))

    def tile(masked: bool, b_plain: bool = False) -> None:
        """The tile's code: with ``masked``, every C and B access under the column and row masks (an edge tile);
        without, plain vector loads and stores (a whole tile: AMD's AVX2 ``vmaskmovps`` in the loop halved the
        rate, 88 -> 46 GFLOP/s a thread on a Zen 4 without AVX-512). ``b_plain``: an edge tile whose B rows are
        readable to NR columns (a packed panel, ``flags & 32``) loads B plainly in the loop; only C and the
        residual stay masked."""
        init = []
        for i in range(mr):
            row = builder.gep(c, [builder.mul(ir.Constant(i64, i), ldc)])
            for v in range(nv):
                ptr = vptr(row, ir.Constant(i64, v * w))
                if masked:  # a row out of range (or no accumulation) is not read at all (row_store)
                    keep = builder.and_(accumulate, row_ok(i))
                    init.append(guarded_load(builder, keep, lambda q=ptr, m=col_mask[v]: builder.call(
                        mload, [q, ir.Constant(i32, 4), m, zero]), zero))
                else:  # C is the tile's own memory, in bounds: load it, keep it only when accumulating
                    init.append(builder.select(accumulate, builder.load(ptr, align=4), zero))
        def step(k: Any, acc: list[Any]) -> list[Any]:
            b_row = builder.gep(b, [builder.load(builder.gep(koff, [k])) if indirect else builder.mul(k, ldb)])
            prefetch(builder, builder.gep(b_row, [b_ahead]))
            if masked and not b_plain:
                bv = [builder.call(mload, [vptr(b_row, ir.Constant(i64, v * w)), ir.Constant(i32, 4), col_mask[v],
                                           zero]) for v in range(nv)]
            else:
                bv = [builder.load(vptr(b_row, ir.Constant(i64, v * w)), align=4) for v in range(nv)]
            a_col = builder.gep(a, [builder.mul(k, ir.Constant(i64, PANEL))])
            nxt: list[Any] = []
            for i in range(mr):
                ai = _splat(builder, builder.load(builder.gep(a_col, [ir.Constant(i64, i)])), vt)
                nxt.extend(builder.call(fma, [ai, bv[v], acc[i * nv + v]]) for v in range(nv))
            return nxt

        final = reduction_loop(builder, "micro", k_len, init, step)
        final = _epilogue(builder, final, mr, nv, w, col_mask if masked else [every] * nv, bias, bias_off, res, r_off,
                          ldr, clamp, flags, mload)
        def stores(nontemporal: bool) -> None:
            for i in range(mr):
                row = builder.gep(c, [builder.mul(ir.Constant(i64, i), ldc)])
                for v in range(nv):
                    ptr = vptr(row, ir.Constant(i64, v * w))
                    if masked:  # a row out of range is not touched at all (row_store)
                        row_store(builder, row_ok(i), lambda f=final[i * nv + v], q=ptr, m=col_mask[v]: builder.call(
                            mstore, [f, q, ir.Constant(i32, 4), m]))
                    elif nontemporal:  # whole aligned lines, past the caches (flags & 128)
                        st = builder.store(final[i * nv + v], ptr, align=4 * w)
                        st.set_metadata("nontemporal", builder.module.add_metadata([ir.Constant(i32, 1)]))
                    else:
                        builder.store(final[i * nv + v], ptr, align=4)

        if masked:
            stores(False)
        else:
            nt = builder.icmp_signed("!=", builder.and_(flags, ir.Constant(i64, 128)), ir.Constant(i64, 0))
            with builder.if_else(nt) as (streaming, cached):
                with streaming:
                    stores(True)
                with cached:
                    stores(False)

    # prefetch the tile's C rows (written in the epilogue; read first when accumulating) and its residual rows: one
    # MR x NR tile touches MR lines a whole row of C apart, which no hardware prefetcher follows; issued before the
    # K loop, their misses overlap its FMAs (BLIS's micro-kernels prefetch C the same way). A prefetch never
    # faults, so an absent residual (offset -1) costs nothing but the instruction.
    # flags & 64 (B read in place, one column panel after another): each K row of B is prefetched one panel ahead
    # (NR floats further), the row the next task of the same thread reads; otherwise the prefetch is of the row
    # being loaded (no effect but the instruction)
    b_ahead = builder.select(builder.icmp_signed("!=", builder.and_(flags, ir.Constant(i64, 64)), ir.Constant(i64, 0)),
                             ir.Constant(i64, nv * w), ir.Constant(i64, 0))
    res_row0 = builder.gep(res, [builder.select(builder.icmp_signed(">=", r_off, ir.Constant(i64, 0)), r_off,
                                                ir.Constant(i64, 0))])
    for i in range(mr):
        ii = ir.Constant(i64, i)
        for base, ld, write in ((c, ldc, True), (res_row0, ldr, False)):
            prefetch(builder, builder.gep(base, [builder.mul(ii, ld)]), write)
    # a whole tile (every column and row) runs unmasked code; an edge tile the masked form, with plain B loads
    # when its B rows are whole packed rows (flags & 32: the last column panel of a packed B)
    b_rows_whole = builder.icmp_signed("!=", builder.and_(flags, ir.Constant(i64, 32)), ir.Constant(i64, 0))

    def edge(masked: bool) -> None:
        if not masked:
            tile(False)
            return
        with builder.if_else(b_rows_whole) as (plain_b, masked_b):
            with plain_b:
                tile(True, b_plain=True)
            with masked_b:
                tile(True)

    _whole_or_edge(builder, "micro", ncols, nv * w, row_lo, row_hi, mr, edge)
    return context.get_dummy_value()


def row_store(builder: ir.IRBuilder, ok: Any, emit: Any) -> None:
    """``emit()`` (a row's masked store) only when the i1 ``ok`` holds. A masked store whose mask is all false still
    names its address, and one past the end of a buffer (the rows of an edge tile beyond the last output channel)
    can land on an unmapped page: the store then takes the processor's fault-suppression assist, hundreds of cycles
    each (a 20 -> 113 channel 1x1 layer at 56x56 ran 4.5x slower, or not, depending on where the pool placed its
    output)."""
    with builder.if_then(ok):
        emit()


def guarded_load(builder: ir.IRBuilder, ok: Any, load: Any, zero: Any) -> Any:
    """``load()`` (a masked load) when the i1 ``ok`` holds, else ``zero``, without naming the address otherwise (see
    :func:`row_store`)."""
    before = builder.block
    then_bb = builder.append_basic_block("guarded.load")
    join_bb = builder.append_basic_block("guarded.join")
    builder.cbranch(ok, then_bb, join_bb)
    builder.position_at_end(then_bb)
    value = load()
    loaded = builder.block
    builder.branch(join_bb)
    builder.position_at_end(join_bb)
    phi = builder.phi(zero.type)
    phi.add_incoming(value, loaded)
    phi.add_incoming(zero, before)
    return phi


def _whole_or_edge(builder: ir.IRBuilder, name: str, ncols: Any, cols: int, row_lo: Any, row_hi: Any, rows: int,
                   tile: Any) -> None:
    """Branch to ``tile(False)`` when the tile is whole (``ncols >= cols``, ``row_lo <= 0``, ``row_hi >= rows``),
    else to ``tile(True)`` (the edge form), and continue after both."""
    i64 = ir.IntType(64)
    whole = builder.and_(builder.icmp_signed(">=", ncols, ir.Constant(i64, cols)),
                         builder.and_(builder.icmp_signed("<=", row_lo, ir.Constant(i64, 0)),
                                      builder.icmp_signed(">=", row_hi, ir.Constant(i64, rows))))
    full_bb = builder.append_basic_block(f"{name}.whole")
    edge_bb = builder.append_basic_block(f"{name}.edge")
    end_bb = builder.append_basic_block(f"{name}.end")
    builder.cbranch(whole, full_bb, edge_bb)
    builder.position_at_end(full_bb)
    tile(False)
    builder.branch(end_bb)
    builder.position_at_end(edge_bb)
    tile(True)
    builder.branch(end_bb)
    builder.position_at_end(end_bb)


SILU = 256
"""``flags & SILU``: x / (1 + e^−x) (SiLU, ``swish`` with a = 1) after the first fake quantization, before the
residual (YOLO's conv → BN → SiLU [→ + shortcut]), on the registers: as a fused chain it ran per tile row of at most
NR pixels, a call each."""
HSWISH = 512
"""``flags & HSWISH``: HardSwish, x · min(max(x + 3, 0), 6) / 6, at the same place (MobileNetV3's conv → BN →
HardSwish)."""


def _exp_vector(builder: ir.IRBuilder, x: Any, w: int) -> Any:
    """e^x of a <w x float>, the algorithm and constants of :func:`~kernel_selector.common.cpu_fastmath.exp_f32`
    (Cephes' ``expf``, S. Moshier): x clamped to [−87, 88], n = floor(x·log2 e + 1/2), r = x − n·ln 2 in two parts,
    a degree-6 polynomial, times 2^n built from its exponent bits. A NaN becomes a bound here (``maxnum``); the
    SiLU's x / (1 + e^−x) still gives NaN for it."""
    f32, i32 = ir.FloatType(), ir.IntType(32)
    vt, vi = ir.VectorType(f32, w), ir.VectorType(i32, w)

    def c(v: float) -> Any:
        return ir.Constant(vt, [float(np.float32(v))] * w)

    maxnum = vector_intrinsic(builder, "maxnum", w)
    minnum = vector_intrinsic(builder, "minnum", w)
    floor = vector_intrinsic(builder, "floor", w)
    xc = builder.call(minnum, [builder.call(maxnum, [x, c(-87.0)]), c(88.0)])
    n = builder.call(floor, [builder.fadd(builder.fmul(xc, c(1.44269504088896341)), c(0.5))])
    r = builder.fsub(xc, builder.fmul(n, c(0.693359375)))
    r = builder.fsub(r, builder.fmul(n, c(-2.12194440e-4)))
    p = c(1.9875691500e-4)
    for coef in (1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1):
        p = builder.fadd(builder.fmul(p, r), c(coef))
    y = builder.fadd(builder.fadd(builder.fmul(builder.fmul(p, r), r), r), c(1.0))
    bits = builder.shl(builder.add(builder.fptosi(n, vi), ir.Constant(vi, [127] * w)), ir.Constant(vi, [23] * w))
    return builder.fmul(y, builder.bitcast(bits, vt))


def _epilogue(builder: ir.IRBuilder, acc: list[Any], mr: int, nv: int, w: int, col_mask: list[Any], bias: Any,
              bias_off: Any, res: Any, r_off: Any, ldr: Any, clamp: Any, flags: Any, mload: Any,
              row_ok: list[Any] | None = None, blocked: bool = False) -> list[Any]:
    """Bias, clamp, fake quantization, residual, clamp, fake quantization on the accumulators (module docstring);
    each step selected by a flag. With ``row_ok`` (an i1 per row), the residual of a row that is off is not read.

    ``blocked`` (the channel-vector tiles' b_fs_yx_fsv16 output, :mod:`.cpu_microkernel_oc`): accumulator ``i * nv +
    v`` holds channels v·w .. v·w + w − 1 of pixel i in its lanes; its bias is the vector ``bias[bias_off + v·w :]``
    and its residual the vector at ``res[r_off + (v·w div 16) · ldr + 16 · i + v·w mod 16]`` (16 channels of a
    pixel contiguous, blocks ``ldr`` apart; ``mload`` then a w-lane masked load)."""
    f32, i64, i32 = ir.FloatType(), ir.IntType(64), ir.IntType(32)
    vt = ir.VectorType(f32, w)
    fma = vector_intrinsic(builder, "fmuladd", w)
    rint = vector_intrinsic(builder, "rint", w)
    zero64 = ir.Constant(i64, 0)
    maxnum = vector_intrinsic(builder, "maxnum", w)
    minnum = vector_intrinsic(builder, "minnum", w)
    has_bias = builder.icmp_signed(">=", bias_off, zero64)
    has_res = builder.icmp_signed(">=", r_off, zero64)
    safe_b = builder.select(has_bias, bias_off, zero64)
    safe_r = builder.select(has_res, r_off, zero64)
    bound = [_splat(builder, builder.load(builder.gep(clamp, [ir.Constant(i64, j)])), vt) for j in range(4)]
    clamp1 = builder.icmp_signed("!=", builder.and_(flags, ir.Constant(i64, 1)), zero64)
    clamp2 = builder.icmp_signed("!=", builder.and_(flags, ir.Constant(i64, 2)), zero64)
    zero = ir.Constant(vt, [0.0] * w)

    def clip(v: Any, on: Any, lo: Any, hi: Any) -> Any:
        return builder.select(on, builder.call(minnum, [builder.call(maxnum, [v, lo]), hi]), v)

    def branch(vals: list[Any], bit: int, name: str, step: Any) -> list[Any]:
        """``step(x)`` on every value in a branch on ``flags & bit`` (phi nodes join the two paths: a select would
        cost the step's vector ops on every tile of every convolution)."""
        on = builder.icmp_signed("!=", builder.and_(flags, ir.Constant(i64, bit)), zero64)
        before = builder.block
        then_bb = builder.append_basic_block(f"{name}{bit}.then")
        join_bb = builder.append_basic_block(f"{name}{bit}.join")
        builder.cbranch(on, then_bb, join_bb)
        builder.position_at_end(then_bb)
        new = [step(x) for x in vals]
        done = builder.block
        builder.branch(join_bb)
        builder.position_at_end(join_bb)
        out = []
        for x, y in zip(vals, new):
            p = builder.phi(vt)
            p.add_incoming(x, before)
            p.add_incoming(y, done)
            out.append(p)
        return out

    def fake_quant(vals: list[Any], bit: int, at: int) -> list[Any]:
        """clamp(rint(a x + b), lo, hi) * c + d with clamp[at:at + 6] on every value, when ``flags & bit``."""
        q: list[Any] = []

        def step(x: Any) -> Any:
            if not q:  # the parameters loaded inside the branch, once
                q.extend(_splat(builder, builder.load(builder.gep(clamp, [ir.Constant(i64, at + j)])), vt)
                         for j in range(6))
            return builder.call(fma, [builder.call(minnum, [builder.call(maxnum, [
                builder.call(rint, [builder.call(fma, [q[0], x, q[1]])]), q[2]]), q[3]]), q[4], q[5]])

        return branch(vals, bit, "fq", step)

    one = ir.Constant(vt, [1.0] * w)
    three, six = ir.Constant(vt, [3.0] * w), ir.Constant(vt, [6.0] * w)
    sixth = ir.Constant(vt, [float(np.float32(1.0 / 6.0))] * w)

    def silu(x: Any) -> Any:
        """x / (1 + e^−x) (:func:`_exp_vector`)."""
        return builder.fdiv(x, builder.fadd(one, _exp_vector(builder, builder.fneg(x), w)))

    def hard_swish(x: Any) -> Any:
        """x · min(max(x + 3, 0), 6) · 1/6, the element-wise table's order."""
        return builder.fmul(builder.fmul(x, builder.call(minnum, [builder.call(maxnum, [builder.fadd(x, three), zero]),
                                                                  six])), sixth)

    xs: list[Any] = []
    if blocked:  # one bias vector per channel vector, shared by the tile's pixels
        bvs = [guarded_load(builder, has_bias, lambda v=v: builder.load(builder.bitcast(
            builder.gep(bias, [builder.add(safe_b, ir.Constant(i64, v * w))]), vt.as_pointer()), align=4), zero)
            for v in range(nv)]
    for i in range(mr):
        ii = ir.Constant(i64, i)
        if blocked:
            xs.extend(clip(builder.fadd(acc[i * nv + v], bvs[v]), clamp1, bound[0], bound[1]) for v in range(nv))
            continue
        bval = builder.load(builder.gep(bias, [builder.add(safe_b, ii)]))
        bv = builder.select(has_bias, _splat(builder, bval, vt), zero)
        xs.extend(clip(builder.fadd(acc[i * nv + v], bv), clamp1, bound[0], bound[1]) for v in range(nv))
    xs = fake_quant(xs, 8, 4)
    xs = branch(branch(xs, SILU, "act", silu), HSWISH, "act", hard_swish)
    out = []
    for i in range(mr):
        ii = ir.Constant(i64, i)
        rrow = builder.gep(res, [builder.add(safe_r, builder.mul(ii, ldr))])
        for v in range(nv):
            at = (builder.add(builder.add(safe_r, builder.mul(ir.Constant(i64, v * w // 16), ldr)),
                              ir.Constant(i64, 16 * i + v * w % 16)) if blocked else None)
            ptr = builder.bitcast(builder.gep(res, [at]) if blocked else
                                  builder.gep(rrow, [ir.Constant(i64, v * w)]), vt.as_pointer())
            on = has_res if row_ok is None else builder.and_(has_res, row_ok[i])
            rv = guarded_load(builder, on, lambda q=ptr, m=col_mask[v]: builder.call(
                mload, [q, ir.Constant(i32, 4), m, zero]), zero)
            out.append(clip(builder.fadd(xs[i * nv + v], rv), clamp2, bound[2], bound[3]))
    return fake_quant(out, 16, 10)


def make_micro_kernel(mr: int, nv: int, w: int) -> Any:
    """A numba intrinsic ``micro(a, a_off, b, b_off, ldb, c, c_off, ldc, k, ncols, row_lo, row_hi, bias, bias_off,
    res, res_off, ldr, clamp, flags)`` computing one mr × (nv·w) tile and its epilogue as the module docstring says
    (float32 1-D arrays, ``clamp`` float32[16], int64 offsets, counts and flags). Callable only from numba-compiled
    code. Raises ValueError when ``mr`` does not divide the panel height 16."""
    if PANEL % mr:
        raise ValueError(f"micro-kernel rows {mr} must divide the weight panel height {PANEL}")

    @intrinsic
    def micro(typingctx: Any, a: Any, a_off: Any, b: Any, b_off: Any, ldb: Any, c: Any, c_off: Any, ldc: Any,
              k: Any, ncols: Any, row_lo: Any, row_hi: Any, bias: Any, bias_off: Any, res: Any, res_off: Any,
              ldr: Any, clamp: Any, flags: Any) -> Any:
        ip = types.intp
        sig = types.void(a, ip, b, ip, ip, c, ip, ip, ip, ip, ip, ip, bias, ip, res, ip, ip, clamp, ip)
        return sig, lambda context, builder, s, args: _emit_micro(context, builder, s, args, mr, nv, w)

    return micro


def make_micro_kernel_rows(mr: int, nv: int, w: int) -> Any:
    """The indirect form ``micro_rows(a, a_off, b, b_off, koff, koff_off, c, c_off, ldc, k, ncols, row_lo, row_hi,
    bias, bias_off, res, res_off, ldr, clamp, flags)``: B row k starts at ``b[b_off + koff[koff_off + k]]`` (int64
    ``koff``) instead of ``b_off + k · ldb``, so a tile reads the rows of an implicit patch matrix (the padded
    planes of :mod:`kernel_selector.kernels.convolution.cpu_conv_grid`) where they lie, with no packed copy: the
    indirection of XNNPACK's convolution micro-kernels (Dukhan, "The Indirect Convolution Algorithm", 2019), one
    pointer per K row. Otherwise as :func:`make_micro_kernel`."""
    if PANEL % mr:
        raise ValueError(f"micro-kernel rows {mr} must divide the weight panel height {PANEL}")

    @intrinsic
    def micro_rows(typingctx: Any, a: Any, a_off: Any, b: Any, b_off: Any, koff: Any, koff_off: Any, c: Any,
                   c_off: Any, ldc: Any, k: Any, ncols: Any, row_lo: Any, row_hi: Any, bias: Any, bias_off: Any,
                   res: Any, res_off: Any, ldr: Any, clamp: Any, flags: Any) -> Any:
        ip = types.intp
        sig = types.void(a, ip, b, ip, koff, ip, c, ip, ip, ip, ip, ip, ip, bias, ip, res, ip, ip, clamp, ip)
        return sig, lambda context, builder, s, args: _emit_micro(context, builder, s, args, mr, nv, w, True)

    return micro_rows


micro_kernel = make_micro_kernel(MR, NV, W)
micro_kernel_rows = make_micro_kernel_rows(MR, NV, W)


@intrinsic
def _store_fence(typingctx: Any) -> Any:
    """``store_fence()``: a full memory fence (``fence seq_cst``, x86 ``mfence``), after the non-temporal stores of
    ``flags & 128`` and before the task ends: those stores are weakly ordered, and the next kernel's threads read
    what they wrote. Callable only from numba-compiled code."""
    def emit(context: Any, builder: ir.IRBuilder, sig: Any, args: list[Any]) -> Any:
        builder.fence("seq_cst")
        return context.get_dummy_value()

    return types.void(), emit


store_fence: Any = _store_fence  # called as store_fence() from numba code (the intrinsic's typing context is numba's)
