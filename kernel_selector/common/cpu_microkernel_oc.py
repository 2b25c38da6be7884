"""The channel-vector micro-kernel of the CPU engine: an output tile of NV · W output channels × at most W pixels
with the output channels in the vector lanes during the reduction, written in LLVM IR.

The other orientation of :mod:`.cpu_microkernel`'s GEMM, the one oneDNN's and onnxruntime's (MLAS NCHWc) direct
convolutions use: per k step the kernel loads one vector of W weights (output channels oc0 .. oc0 + W − 1 of input
row k, contiguous in an ``os_iyx_osv16`` panel), broadcasts W input values (pixels p0 .. p0 + W − 1 of input row k)
and issues W fused multiply-adds into W accumulators, one per pixel. The pixels are the short side: a 7×7 image
(49 pixels) fills 7 tiles of 8 (87% of the lanes busy) where the pixel-vector kernel fills 4 panels of 16 (77%), and
the weight panel is read as it lies (no packed B, no im2col for a 1×1 convolution: the input planes are the A
operand where they lie). After the reduction the W × W accumulator block is transposed in registers
(``shufflevector``), so the epilogue and the stores are :mod:`.cpu_microkernel`'s own: one vector per output channel
row of a plain (bfyx) output, bias per row, residual rows, clamps and fake quantizations in registers.

Operand forms (float32, offsets in elements):
- X: element (pixel i, k) at ``x[x_off + k * sak + min(i, npx - 1)]`` (pixels past ``npx`` re-read the last one,
  so nothing past the tile is touched; their lanes are never stored).
- Wt: element (k, channel j) at ``w[w_off + (j div 16) * K * 16 + k * 16 + j mod 16]`` (``os_iyx_osv16`` panels of
  K = ``k_len`` rows; a tile of more than 16 channels reads consecutive panels, ``w_off`` at a panel's lane 0 or 8).
- ``flags & 64`` (:data:`PREFETCH_W_NEXT`): each k step also prefetches the weight rows one tile of channels on.
- C: output channel row j, pixel i at ``c[c_off + j * ldc + i]``; rows ``oc_lo <= j < oc_hi`` and pixels
  ``< npx`` are written (masked stores only on edge tiles).
- Epilogue: ``bias[bias_off + j]`` when ``bias_off >= 0``; ``res[res_off + j * ldr + i]`` when ``res_off >= 0``; the
  clamps and fake quantizations of ``clamp`` / ``flags`` as in :mod:`.cpu_microkernel` (bit 4, accumulate, unused).
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .cpu_fma_rate import full_rate_512
from .cpu_ir_intrinsics import prefetch, vector_intrinsic
from .cpu_microkernel import PANEL, W, _epilogue, _splat, _whole_or_edge, reduction_loop, row_store


def row_lanes(mr: int, w: int) -> int:
    """Lanes of the vector that holds an output row of ``mr`` pixels: ``mr`` itself, or with 16-float vectors
    (AVX-512, whose mask registers make masked loads and stores single instructions) the next power of two when
    ``mr`` is not one: a <7 x float> store is split into 4 + 2 + 1 lanes, three stores per row, where an <8 x float>
    one masked to 7 lanes is one."""
    return mr if w < 16 or mr & (mr - 1) == 0 else min(w, 1 << mr.bit_length())


def _transpose(builder: ir.IRBuilder, rows: list[Any], w: int) -> list[Any]:
    """The w × w transpose of ``rows`` (w vectors of w floats): out[j] lane i = rows[i] lane j, as log2(w) stages of
    two-input shuffles (interleave pairs of vectors at distance w/2, w/4, ...)."""
    i32 = ir.IntType(32)
    cur = list(rows)
    half = w // 2
    while half >= 1:
        nxt: list[Any] = [None] * w
        for a in range(w):
            if a & half:
                continue
            b = a | half
            # within each block of 2·half lanes: lo takes a's first half-block then b's, hi the second halves
            lo, hi = [], []
            for base in range(0, w, 2 * half):
                lo += [base + t for t in range(half)] + [w + base + t for t in range(half)]
                hi += [base + half + t for t in range(half)] + [w + base + half + t for t in range(half)]
            nxt[a] = builder.shuffle_vector(cur[a], cur[b], ir.Constant(ir.VectorType(i32, w), lo))
            nxt[b] = builder.shuffle_vector(cur[a], cur[b], ir.Constant(ir.VectorType(i32, w), hi))
        cur = nxt
        half //= 2
    return cur


PREFETCH_X = 1024
"""flags & 1024: every k step prefetches its input row X_AHEAD pixels ahead of the tile (the rows the thread's next
tiles read): a 1×1 layer's K input rows lie a whole plane apart, more streams than the hardware prefetchers follow.
SqueezeNet's 64 -> 16 1×1 layer at 55×55, batch 8, alone: 1.91 -> 1.26 ms (same process, paired); the network at
batch 8 0.95× the time; ResNet-50, GoogLeNet, Inception-v2 at batch 1 0.99-1.01× (2-core Zen 4, AVX-512,
2026-12-08). Set by convolution_kernel_cpu_packed.OC_PREFETCH_X."""
X_AHEAD = 128
PREFETCH_XK = 2048
"""flags & 2048: every k step also prefetches the input row X_K_AHEAD steps further down the reduction at the tile's
first pixel: the first tile to touch a row finds it in L1 rather than waiting on L3 or memory for each of its K
rows in turn (a 1×1 layer's rows lie a plane apart; the hardware prefetchers do not follow K streams)."""
X_K_AHEAD = 32
"""... in k steps (the last row when fewer remain)."""
"""... in pixels (times the pixel stride of the indirect form): 512 bytes, eight cache lines, ahead."""

NARROW_TRANSPOSE = True
"""Transpose a tile's pw (< W) pixel vectors straight into W rows of pw lanes (:func:`_transpose_narrow`: log2(pw)
two-input shuffles per vector and one extraction per row; 32 instead of 64 shuffles for 8 × 16 on AVX-512) rather
than as a W × W square padded with zero vectors. Read when the kernels are compiled, and numba's cache folder is
keyed by this file's text (numba_cache.py): A/B by editing it, not by setting it at run time."""


def _transpose_narrow(builder: ir.IRBuilder, rows: list[Any], pw: int, w: int) -> list[Any]:
    """The pw × w → w × pw transpose of ``rows`` (pw vectors of w floats, pw a power of two below w): out[c] lane
    p = rows[p] lane c, as <pw x float> vectors.

    Element (vector v, lane L) starts at v = pixel p, L = channel c. Stage b (b < log2 pw) swaps bit b of the
    vector index with bit b of the lane index (one two-input shuffle per vector: lanes whose bit b is set come
    from the partner vector); afterwards channel c sits in vector c mod pw, lanes pw·(c div pw) .. + pw − 1 in
    pixel order, and each row is one extraction."""
    i32 = ir.IntType(32)
    cur = list(rows)
    b = 1
    while b < pw:
        nxt: list[Any] = [None] * pw
        for a in range(pw):
            if a & b:
                continue
            lo = [lane if not lane & b else w + (lane & ~b) for lane in range(w)]  # vector bit 0: lanes of bit 0
            hi = [(lane | b) if not lane & b else w + lane for lane in range(w)]  # vector bit 1: lanes of bit 1
            nxt[a] = builder.shuffle_vector(cur[a], cur[a | b], ir.Constant(ir.VectorType(i32, w), lo))
            nxt[a | b] = builder.shuffle_vector(cur[a], cur[a | b], ir.Constant(ir.VectorType(i32, w), hi))
        cur = nxt
        b *= 2
    out = []
    for c in range(w):
        src, base = cur[c % pw], pw * (c // pw)
        out.append(builder.shuffle_vector(src, src, ir.Constant(ir.VectorType(i32, pw), list(range(base, base + pw)))))
    return out


def _emit(context: Any, builder: ir.IRBuilder, sig: Any, args: list[Any], mr: int, nv: int, w: int,
          indirect: bool = False, row_w: int = 0, blocked: bool = False) -> Any:
    """``mr`` pixels (broadcast) × ``nv`` vectors of ``w`` output channels; after the reduction each of the nv
    mr × w blocks is transposed to w rows of mr pixels, so the epilogue and stores run on <mr x float> rows.
    ``indirect``: input row k at ``x_off + koff[k]``, pixel i ``sai`` further (two more arguments). ``row_w`` > 0
    (indirect only): the tile's pixels are mr / row_w input rows of ``row_w`` pixels, ``gw`` (one more argument,
    last) apart: pixel i at ``(i div row_w) · gw + (i mod row_w) · sai``. ``blocked``: a b_fs_yx_fsv16 output
    (:func:`make_micro_kernel_oc_rows_blocked`), no transpose: each accumulator is stored as it is."""
    gw = None
    if indirect and row_w:
        *args, gw = args
    if indirect:
        (x_arr, x_off, koff_arr, sai, npx, w_arr, w_off, k_len, c_arr, c_off, ldc, oc_lo, oc_hi, bias_arr, bias_off,
         r_arr, r_off, ldr, clamp_arr, flags) = args
        koff = context.make_array(sig.args[2])(context, builder, koff_arr).data
        shift = 1
    else:
        (x_arr, x_off, sak, npx, w_arr, w_off, k_len, c_arr, c_off, ldc, oc_lo, oc_hi, bias_arr, bias_off, r_arr,
         r_off, ldr, clamp_arr, flags) = args
        shift = 0
    f32, i64, i32 = ir.FloatType(), ir.IntType(64), ir.IntType(32)
    vt = ir.VectorType(f32, w)
    pw = row_lanes(mr, w)  # an output row of mr pixels in a vector of pw lanes, and its mask
    rt, rm = ir.VectorType(f32, pw), ir.VectorType(ir.IntType(1), pw)
    x = builder.gep(context.make_array(sig.args[0])(context, builder, x_arr).data, [x_off])
    wp = builder.gep(context.make_array(sig.args[4 + shift])(context, builder, w_arr).data, [w_off])
    c = builder.gep(context.make_array(sig.args[7 + shift])(context, builder, c_arr).data, [c_off])
    bias = context.make_array(sig.args[12 + shift])(context, builder, bias_arr).data
    res = context.make_array(sig.args[14 + shift])(context, builder, r_arr).data
    clamp = context.make_array(sig.args[17 + shift])(context, builder, clamp_arr).data
    fma = vector_intrinsic(builder, "fmuladd", w)
    mload = vector_intrinsic(builder, "masked.load", pw)
    mstore = vector_intrinsic(builder, "masked.store", pw)
    zero = ir.Constant(vt, [0.0] * w)
    every = ir.Constant(rm, [1] * pw)
    lanes = ir.Constant(ir.VectorType(i64, pw), list(range(pw)))
    px_mask = builder.icmp_signed("<", lanes, _splat(builder, npx, ir.VectorType(i64, pw)))  # npx <= mr <= pw
    last = builder.sub(npx, ir.Constant(i64, 1))
    rows_n = nv * w  # output channel rows of the tile
    # vector v holds channels v·w .. v·w + w − 1: lane (v·w) mod PANEL of weight panel (v·w) div PANEL, the panels
    # k_len · PANEL floats apart (a tile wider than one panel reads the next panels too)
    v_off = [builder.add(builder.mul(k_len, ir.Constant(i64, (v * w) // PANEL * PANEL)),
                         ir.Constant(i64, (v * w) % PANEL)) for v in range(nv)]

    w_ahead = builder.select(builder.icmp_signed("!=", builder.and_(flags, ir.Constant(i64, 64)), ir.Constant(i64, 0)),
                             builder.mul(k_len, ir.Constant(i64, -(-nv * w // PANEL) * PANEL)), ir.Constant(i64, 0))

    # flags & PREFETCH_X: each k step prefetches its input row X_AHEAD pixels on (else the element being read)
    x_on = builder.icmp_signed("!=", builder.and_(flags, ir.Constant(i64, PREFETCH_X)), ir.Constant(i64, 0))
    x_ahead = builder.select(x_on, builder.mul(ir.Constant(i64, X_AHEAD), sai) if indirect else
                             ir.Constant(i64, X_AHEAD), ir.Constant(i64, 0))
    # flags & PREFETCH_XK: the row X_K_AHEAD steps on (else the row being read)
    k_ahead = builder.select(builder.icmp_signed("!=", builder.and_(flags, ir.Constant(i64, PREFETCH_XK)),
                                                 ir.Constant(i64, 0)), ir.Constant(i64, X_K_AHEAD), ir.Constant(i64, 0))
    k_last = builder.sub(k_len, ir.Constant(i64, 1))

    def rptr(base: Any, off: Any) -> Any:
        return builder.bitcast(builder.gep(base, [off]), rt.as_pointer())

    def tile(edge: bool) -> None:
        """The tile's code; ``edge``: pixels past npx re-read the last one, masked stores on the rows the tile owns."""
        if edge:
            p_off = [builder.select(builder.icmp_signed("<", ir.Constant(i64, i), npx), ir.Constant(i64, i), last)
                     for i in range(mr)]
        else:
            p_off = [ir.Constant(i64, i) for i in range(mr)]
        if indirect and gw is not None:  # rows of row_w pixels gw apart
            rw = ir.Constant(i64, row_w)
            p_off = [builder.add(builder.mul(builder.sdiv(p, rw), gw), builder.mul(builder.srem(p, rw), step_of[0]))
                     for p in p_off]
        elif indirect:  # a constant pixel step (UNIT_STEPS) folds into the loads' displacements
            p_off = [builder.mul(p, step_of[0]) for p in p_off]
        def step(k: Any, acc: list[Any]) -> list[Any]:
            w_row = builder.gep(wp, [builder.mul(k, ir.Constant(i64, PANEL))])
            wv = [builder.load(builder.bitcast(builder.gep(w_row, [v_off[v]]), vt.as_pointer()), align=4)
                  for v in range(nv)]
            for v in range(nv):
                if (v * w) % PANEL == 0:  # one prefetch per 64-byte panel row
                    prefetch(builder, builder.gep(w_row, [builder.add(v_off[v], w_ahead)]))
            x_row = builder.gep(x, [builder.load(builder.gep(koff, [k])) if indirect else builder.mul(k, sak)])
            prefetch(builder, builder.gep(x_row, [x_ahead]))
            kk = builder.add(k, k_ahead)
            kk = builder.select(builder.icmp_signed(">", kk, k_last), k_last, kk)
            x_next = builder.gep(x, [builder.load(builder.gep(koff, [kk])) if indirect else builder.mul(kk, sak)])
            prefetch(builder, builder.gep(x_next, [p_off[0]]))
            nxt: list[Any] = []
            for i in range(mr):
                xi = _splat(builder, builder.load(builder.gep(x_row, [p_off[i]])), vt)
                nxt.extend(builder.call(fma, [xi, wv[v], acc[i * nv + v]]) for v in range(nv))
            return nxt

        final = reduction_loop(builder, "oc", k_len, [zero] * (mr * nv), step)
        if blocked:
            _store_blocked(builder, final, mr, nv, w, edge, npx, oc_hi, c, ldc, bias, bias_off, res, r_off, ldr,
                           clamp, flags)
            return
        rows: list[Any] = []
        for v in range(nv):  # block v: pixels i = 0..mr-1 by channels v·w .. v·w + w - 1
            if NARROW_TRANSPOSE and pw < w and pw & (pw - 1) == 0:
                rows.extend(_transpose_narrow(builder, [final[i * nv + v] for i in range(mr)]
                                              + [zero] * (pw - mr), pw, w))
                continue
            block = [final[i * nv + v] for i in range(mr)] + [zero] * (w - mr)
            full = _transpose(builder, block, w) if w > 1 else block
            keep = ir.Constant(ir.VectorType(i32, pw), list(range(pw)))
            rows.extend(builder.shuffle_vector(r, r, keep) if pw < w else r for r in full)
        oks = [builder.and_(builder.icmp_signed("<=", oc_lo, ir.Constant(i64, j)),
                            builder.icmp_signed("<", ir.Constant(i64, j), oc_hi)) for j in range(rows_n)]
        masked = edge or pw > mr
        rows = _epilogue(builder, rows, rows_n, 1, pw, [px_mask if masked else every], bias, bias_off, res, r_off, ldr,
                         clamp, flags, mload, oks if edge else None)
        for j in range(rows_n):
            ptr = rptr(c, builder.mul(ir.Constant(i64, j), ldc))
            if edge:  # a row out of range is not touched at all (see row_store)
                row_store(builder, oks[j], lambda r=rows[j], q=ptr: builder.call(mstore, [r, q, ir.Constant(i32, 4),
                                                                                          px_mask]))
            elif pw > mr:  # one masked store (AVX-512: a mask register) instead of 4 + 2 + 1 for 7 lanes
                builder.call(mstore, [rows[j], ptr, ir.Constant(i32, 4), px_mask])
            else:
                builder.store(rows[j], ptr, align=4)

    step_of = [sai if indirect else None]  # the pixel step the code is emitted for: a constant in specialized copies
    steps = BLOCKED_STEPS if blocked else UNIT_STEPS
    if not indirect or not steps:
        _whole_or_edge(builder, "oc", npx, mr, oc_lo, oc_hi, rows_n, tile)
        return context.get_dummy_value()
    # one copy of the code per common pixel step (1: stride 1 and the grid; 2: stride 2) and a generic one: with a
    # run-time step each of the mr pixel offsets took a register, and with 7 or more pixels the loop's pointers and
    # counters went to the stack (twelve reloads per k step of a 7 x 32 tile inside oc_row_tiles)
    end = builder.append_basic_block("oc.steps.end")
    for const in steps:
        here = builder.append_basic_block(f"oc.step{const}")
        other = builder.append_basic_block(f"oc.step{const}.not")
        builder.cbranch(builder.icmp_signed("==", sai, ir.Constant(i64, const)), here, other)
        builder.position_at_end(here)
        step_of[0] = ir.Constant(i64, const)
        _whole_or_edge(builder, f"oc{const}", npx, mr, oc_lo, oc_hi, rows_n, tile)
        builder.branch(end)
        builder.position_at_end(other)
    step_of[0] = sai
    _whole_or_edge(builder, "oc", npx, mr, oc_lo, oc_hi, rows_n, tile)
    builder.branch(end)
    builder.position_at_end(end)
    return context.get_dummy_value()


def _store_blocked(builder: ir.IRBuilder, acc: list[Any], mr: int, nv: int, w: int, edge: bool, npx: Any, oc_hi: Any,
                   c: Any, ldc: Any, bias: Any, bias_off: Any, res: Any, r_off: Any, ldr: Any, clamp: Any,
                   flags: Any) -> None:
    """The epilogue (:func:`~.cpu_microkernel._epilogue`, its blocked form) and the stores of a tile whose output is
    b_fs_yx_fsv16: channel j of pixel i at ``c[(j div 16) · ldc + 16 · i + j mod 16]`` (``c`` at the tile's first
    channel and pixel), one vector store per accumulator, no transpose. An edge tile stores only pixels below
    ``npx`` and vectors whose first channel is below ``oc_hi`` (the lanes of a block past the layer's last channel
    are the block's padding: written, never read)."""
    i64 = ir.IntType(64)
    vt = ir.VectorType(ir.FloatType(), w)
    every = ir.Constant(ir.VectorType(ir.IntType(1), w), [1] * w)
    pix_ok = [builder.icmp_signed("<", ir.Constant(i64, i), npx) for i in range(mr)] if edge else None
    xs = _epilogue(builder, acc, mr, nv, w, [every] * nv, bias, bias_off, res, r_off, ldr, clamp, flags,
                   vector_intrinsic(builder, "masked.load", w), pix_ok, blocked=True)
    for i in range(mr):
        for v in range(nv):
            at = builder.add(builder.mul(ir.Constant(i64, v * w // 16), ldc), ir.Constant(i64, 16 * i + v * w % 16))
            ptr = builder.bitcast(builder.gep(c, [at]), vt.as_pointer())
            if edge:
                ok = builder.and_(pix_ok[i], builder.icmp_signed("<", ir.Constant(i64, v * w), oc_hi))  # type: ignore
                row_store(builder, ok, lambda q=ptr, x=xs[i * nv + v]: builder.store(x, q, align=4))
            else:
                builder.store(xs[i * nv + v], ptr, align=4)


BLOCKED_STEPS = (1, 2, 16, 32)
"""The pixel steps the blocked-output tiles get their own code for: 1 and 2 (a bfyx input at stride 1 and 2), 16
and 32 (a b_fs_yx_fsv16 input at stride 1 and 2), as :data:`UNIT_STEPS` (ResNet-50's 3×3 stride-2 256 → 256 layer
from bfyx ran 1.14 ms on the run-time step's code against 0.52 for the plain output's step-2 copy)."""


UNIT_STEPS = (1, 2, 16)
"""Pixel steps (``sai``) for which the indirect tiles have their own copy of the code, the step a constant (see
:func:`_emit`; 16: a b_fs_yx_fsv16 input at stride 1, ``convolution_cpu_oc_blocked`` into bfyx); an empty tuple: one
copy with the step a run-time value. Read when the kernels are compiled (numba's
cache folder is keyed by this file's text: A/B by editing it)."""


def _check_tile(mr: int, nv: int, w: int) -> None:
    """Raises ValueError unless ``nv`` vectors of ``w`` channels divide the weight panel (16) and ``mr`` pixels fit
    one vector (the transpose's square)."""
    if (PANEL % (nv * w) and (nv * w) % PANEL) or PANEL % w or mr > w:
        raise ValueError(f"{nv} vectors of {w} channels must divide the weight panel height {PANEL} or be whole "
                         f"panels, and {mr} pixels fit one vector")


def make_micro_kernel_oc(mr: int, nv: int, w: int) -> Any:
    """A numba intrinsic ``micro_oc(x, x_off, sak, npx, w, w_off, k, c, c_off, ldc, oc_lo, oc_hi, bias, bias_off, res,
    res_off, ldr, clamp, flags)`` computing one tile of ``nv`` · ``w`` output channels × ``mr`` pixels and its
    epilogue as the module docstring says (float32 1-D arrays, ``clamp`` float32[16], int64 offsets, counts and
    flags). Callable only from numba-compiled code. Raises ValueError for a tile shape :func:`_check_tile` refuses."""
    _check_tile(mr, nv, w)

    @intrinsic
    def micro_oc(typingctx: Any, x: Any, x_off: Any, sak: Any, npx: Any, wt: Any, w_off: Any, k: Any, c: Any,
                 c_off: Any, ldc: Any, oc_lo: Any, oc_hi: Any, bias: Any, bias_off: Any, res: Any, res_off: Any,
                 ldr: Any, clamp: Any, flags: Any) -> Any:
        ip = types.intp
        sig = types.void(x, ip, ip, ip, wt, ip, ip, c, ip, ip, ip, ip, bias, ip, res, ip, ip, clamp, ip)
        return sig, lambda context, builder, s, args: _emit(context, builder, s, args, mr, nv, w)

    return micro_oc


def make_micro_kernel_oc_rows_pair(mr: int, nv: int, w: int) -> Any:
    """The indirect form over two output rows of ``mr`` / 2 pixels: ``micro_oc_rows_pair(x, x_off, koff, sai, npx, w,
    w_off, k, c, c_off, ldc, oc_lo, oc_hi, bias, bias_off, res, res_off, ldr, clamp, flags, gw)``, input pixel i at
    ``x[x_off + koff[k] + (i div (mr / 2)) · gw + (i mod (mr / 2)) · sai]``; the output (and residual) pixels
    contiguous (rows of exactly mr / 2 pixels, no row padding). 7-wide maps (224-pixel models' last stage) in the
    14 × 32 tile. Otherwise as :func:`make_micro_kernel_oc_rows`."""
    _check_tile(mr, nv, w)

    @intrinsic
    def micro_oc_rows_pair(typingctx: Any, x: Any, x_off: Any, koff: Any, sai: Any, npx: Any, wt: Any, w_off: Any,
                           k: Any, c: Any, c_off: Any, ldc: Any, oc_lo: Any, oc_hi: Any, bias: Any, bias_off: Any,
                           res: Any, res_off: Any, ldr: Any, clamp: Any, flags: Any, gw: Any) -> Any:
        ip = types.intp
        sig = types.void(x, ip, koff, ip, ip, wt, ip, ip, c, ip, ip, ip, ip, bias, ip, res, ip, ip, clamp, ip, ip)
        return sig, lambda context, builder, s, args: _emit(context, builder, s, args, mr, nv, w, True, mr // 2)

    return micro_oc_rows_pair


def make_micro_kernel_oc_rows_blocked(mr: int, nv: int, w: int) -> Any:
    """:func:`make_micro_kernel_oc_rows` (same arguments) with a b_fs_yx_fsv16 output: channel j, pixel i of the tile
    at ``c[c_off + (j div 16) · ldc + 16 · i + j mod 16]`` (``ldc`` the output's feature-block pitch, ``c_off`` at a
    block's lane 0), the residual likewise at ``res_off`` with block pitch ``ldr``. The accumulators are stored as
    they are (16 channels of a pixel per vector): no transpose, no row stores, the epilogue on the same vectors (one
    bias vector per 16 channels). Input pixel steps :data:`BLOCKED_STEPS` get their own code."""
    return make_micro_kernel_oc_rows(mr, nv, w, blocked=True)


def make_micro_kernel_oc_rows(mr: int, nv: int, w: int, blocked: bool = False) -> Any:
    """The indirect form ``micro_oc_rows(x, x_off, koff, sai, npx, w, w_off, k, c, c_off, ldc, oc_lo, oc_hi, bias,
    bias_off, res, res_off, ldr, clamp, flags)``: input element (pixel i, k) at ``x[x_off + koff[k] + min(i, npx - 1)
    * sai]`` (int64 ``koff``): the patch rows of a padded grid
    (:mod:`kernel_selector.kernels.convolution.cpu_conv_grid`) or the planes of a strided 1×1 convolution read where
    they lie. Otherwise as :func:`make_micro_kernel_oc`; ``blocked``: a b_fs_yx_fsv16 output
    (:func:`make_micro_kernel_oc_rows_blocked`)."""
    _check_tile(mr, nv, w)

    @intrinsic
    def micro_oc_rows(typingctx: Any, x: Any, x_off: Any, koff: Any, sai: Any, npx: Any, wt: Any, w_off: Any, k: Any,
                      c: Any, c_off: Any, ldc: Any, oc_lo: Any, oc_hi: Any, bias: Any, bias_off: Any, res: Any,
                      res_off: Any, ldr: Any, clamp: Any, flags: Any) -> Any:
        ip = types.intp
        sig = types.void(x, ip, koff, ip, ip, wt, ip, ip, c, ip, ip, ip, ip, bias, ip, res, ip, ip, clamp, ip)
        return sig, lambda context, builder, s, args: _emit(context, builder, s, args, mr, nv, w, True, 0, blocked)

    return micro_oc_rows


OC_PIXELS, OC_VECTORS = {16: (7, 2), 8: (4, 2)}.get(W, (4, 4))
"""The tile: OC_PIXELS pixels × OC_VECTORS vectors of output channels. With 16-float vectors (AVX-512) 7 × 2: 32
channels (two weight panels) and 14 accumulators, 9 loads per 14 FMAs, and 7 pixels, which divide the 7-, 14-, 28-
and 56-wide maps of 224-pixel models. It replaced 8 × 1 (16 channels, 9 loads per 8 FMAs, a 7×7 map's 49 pixels in
56 lanes) on 2026-12-08: ResNet-50's 512 → 2048 1×1 at 7×7 with its weights cold (as in a network), isolated, 0.71 →
0.61 ms, with PREFETCH_W_NEXT 0.53 ms (onnxruntime in its network: 0.54). With 8-float vectors (AVX2) 4 × 2: 16
channels."""
OC_CHANNELS = OC_VECTORS * W
"""Output channels per tile (a multiple of the 16-row weight panel, or 16 and a divisor of it)."""
micro_kernel_oc = make_micro_kernel_oc(OC_PIXELS, OC_VECTORS, W)
micro_kernel_oc_rows = make_micro_kernel_oc_rows(OC_PIXELS, OC_VECTORS, W)
if OC_CHANNELS > PANEL:  # the last tile of an odd number of weight panels: one panel (its next would be out of range)
    micro_kernel_oc_panel = make_micro_kernel_oc(OC_PIXELS, PANEL // W, W)
    micro_kernel_oc_rows_panel = make_micro_kernel_oc_rows(OC_PIXELS, PANEL // W, W)
else:
    micro_kernel_oc_panel, micro_kernel_oc_rows_panel = micro_kernel_oc, micro_kernel_oc_rows
ALT_WIDE = W == 16 and full_rate_512()
"""True when the second tile is the wide-row one (below)."""
ALT_PIXELS, ALT_VECTORS = (14, 2) if ALT_WIDE else (8, 1) if W == 16 else (OC_PIXELS, OC_VECTORS)
"""The second tile (``alt``, :func:`~kernel_selector.kernels.convolution.cpu_conv_oc.alt_tile` picks it per layer).
On a host whose 512-bit FMAs run at full rate (:func:`~.cpu_fma_rate.full_rate_512`: Zen 5) the wide-row tile, 14
pixels × 32 channels: 28 accumulators, 16 loads per 28 FMAs, for rows of 14 pixels and more; in ResNet-50 at batch
1 on the 2-core Zen 5 VM (``python benchmarks/cpu_oc_tile_ab.py --tile 14,2``, 12 paired runs, 2026-12-07) its 1×1
layers at 14×14 to 56×56 0.32-0.34 → 0.24-0.26 ms, the stride-2 projections 0.76-0.83 → 0.54-0.61, the 3×3 layers
at 14×14 to 56×56 0.55-0.65 → 0.49-0.51 (onnxruntime in its network: 0.25-0.27 and 0.50-0.55), while 7-wide rows
ran 3.7× slower in it (half of each tile empty). On a half-rate AVX-512 host (Zen 4) the short-reduction tile, 8
pixels × 16 channels (cpu_conv_oc.OC_SHORT_K); with narrower vectors the main tile."""
ALT_CHANNELS = ALT_VECTORS * W
micro_kernel_oc_alt = make_micro_kernel_oc(ALT_PIXELS, ALT_VECTORS, W) if W == 16 else micro_kernel_oc_panel
micro_kernel_oc_rows_alt = (make_micro_kernel_oc_rows(ALT_PIXELS, ALT_VECTORS, W) if W == 16
                            else micro_kernel_oc_rows_panel)
micro_kernel_oc_rows_pair = make_micro_kernel_oc_rows_pair(2 * (ALT_PIXELS // 2), ALT_VECTORS, W)
"""The second tile over two output rows of ALT_PIXELS / 2 pixels (cpu_conv_oc.oc_row_tiles ``pair``: the 7×7 maps of
224-pixel models on a full-rate host, where the 7 × 32 main tile's 14 accumulators leave FMA slots idle)."""
PREFETCH_W_NEXT = 64
"""flags & 64: every k step also prefetches the weight rows one tile further (OC_CHANNELS · K floats on), the
panels the thread's next task reads (tasks of consecutive panels run on one thread under numba's static schedule),
so that a layer whose weights come from memory (a network's deep layers: ResNet-50's 7×7 layers read 2-8 MB each)
streams them while it computes on the current ones, which every pixel tile after the first re-reads from L2. 0
turns it off (A/B measurements)."""
