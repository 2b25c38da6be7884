"""convolution_b_fs_yx_fsv16: blocked direct convolution for CPU OpenCL (PoCL): fsv16 data, os_iyx_osv16 weights.

The oneDNN-style blocked direct convolution (docs/performance.md): 16 output channels x P pixels per work-item,
accumulators in registers, aligned float8 pointer loads, no builtin calls. It reaches 100-200 GFLOP/s on the
ResNet-50 shapes where ``convolution_ref`` gets 1-6 (``benchmarks/conv_kernels.py``). It validates only for data in
``b_fs_yx_fsv16`` and weights in ``os_iyx_osv16``: reorder_inputs puts a convolution there when this kernel
accepts it, and an input buffer padded by the convolution's halo (zeros) selects the variant without bounds checks.
Each tensor may be f32 or f16 (half storage: loaded as float, accumulated in float32, stored rounding to nearest even).
"""

from __future__ import annotations

import dataclasses

from cldnn_py.layout import Format
from cldnn_py.ops import ConvolutionAttrs

from ...common.block import MAX_BLOCK, choose_block
from ...common.conv_window import params_halo
from ...common.fsv16_store import fsv16_store_jit, plain_store_jit
from ...common.fused_ops import fused_ops8_jit, fused_ops8_reason, trailing_shuffle
from ...common.inline_half import half_flags_jit, inline_half_jit
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, FORCE_PRIORITY_5, Arg, ClKernelData, KernelBase, KernelData
from ...params import FLOATS, Params, SupportedKey
from ...selector import register

TUNE_BLOCKS = (3, 4, 5, 6, 7)
PLAIN_INPUT_MAX_CHANNELS = 8  # a first layer (RGB, grey, RGBA) reads bfyx data where it lies (INPUT_PLAIN)
IC_REM_ROLLED = True
"""The input channels after the whole 16-channel slices (IC_REM) run as a loop, not unrolled, when at least one
whole slice precedes them (loop order 0): unrolled, the pip PoCL spilled the straight line of 16 + 8 channel steps
(2026-12-07, isolated, tuning off: 1x1 24 -> 144 at 56x56 0.49 -> 0.12 ms, 24 -> 112 at 56x56 batch 8 2.85 -> 0.83
ms, 40 -> 240 at 28x28 0.087 -> 0.079, 200 -> 200 at 14x14 0.084 -> 0.078; 3x3 24/40/88 channels and whole-slice
counts unchanged). Below 16 channels (first layers) the remainder is the whole loop and stays unrolled."""
VEC16_TUNE_BLOCKS = (4, 6, 8, 10, 12, 14)
VEC16_MAX_BLOCK = 14  # measured on Zen 5 (benchmarks/conv_kernels.py --blocks): 8-14 beat 6 by 10-40%
# OC_BLOCKS -> the widest P whose accumulators, weights and a broadcast fit 32 zmm registers (OC_BLOCKS * P +
# OC_BLOCKS + 1 <= 32)
VEC16_BLOCK_LIMIT = {1: VEC16_MAX_BLOCK, 2: 12, 4: 6}
ROW_BLOCKS_CPU = 4  # pixel blocks of a row per work-item on a CPU device (ConvolutionKernelBFsYxFsv16.row_blocks)
L1_BYTES = 32 * 1024  # what auto-tuning times (7 spills a little on AVX2 but fills a 7-wide row)


def needs_checks(params: Params) -> tuple[bool, bool]:
    """(check y, check x): True where the input buffer's padding does not hold the halo, so bounds are checked.

    Where it does, the kernel reads the halo without checks: the padding must then contain zeros (a producer
    writes only the interior of a zero-filled buffer).
    """
    (by, ay), (bx, ax) = params_halo(params)
    pad = params.inputs[0].padding
    return (pad.lower[2] < by or pad.upper[2] < ay), (pad.lower[3] < bx or pad.upper[3] < ax)


# On a "narrow" device (device_caps["registers"], cldnn_py/register_probe.py) float16 accumulators take two of 16 ymm
# registers each: P <= 4 was their limit (ResNet-50's 3x3 64 @ 56: 155-159 GFLOP/s at P = 4, 137-141 at 6, 96-99 at
# 14 with 891 ymm spill stores in the hot loop). Since 2026-12-07 such a device takes the two-float8 form (vec16).


def narrow(params: Params) -> bool:
    """True when the device's compiler keeps only 16 vector registers of 256 bits (``device_caps["registers"]``)."""
    return params.device_caps.get("registers") == "narrow"


def vec16(params: Params) -> bool:
    """True when the device's native float vector is 16 wide (AVX-512 PoCL) and its compiler keeps 32 registers of
    that width (not :func:`narrow`): one float16 accumulator per pixel. Measured on Zen 5 (PoCL 3.1,
    skylake-avx512): 1.5-1.7x the GFLOP/s of two float8 in the inner loop.

    A narrow device (the pip PoCL's LLVM 14 on a Zen 4 that shows AVX-512: width 16 reported, AVX2 code emitted)
    takes the two-float8 form, the one written and tuned for 16 ymm registers (its spatial blocks, FLAT 1x1 rows):
    same process, interleaved, ``tuning="off"``, batch 1 on that VM (2026-12-07), the two-float8 form against
    float16 at P <= 4: ResNet-50 38.4 vs 41.7 ms, DenseNet-121 39.0 vs 42.0, GoogLeNet 14.9 vs 17.5,
    Inception-v2 18.6 vs 21.6, MobileNetV3-style 3.5 vs 3.7, YOLOv8n-style neck 13.9 vs 15.1, SqueezeNet 6.2 vs
    5.9 (minimum 4.7 vs 5.0)."""
    return int(params.caps.native_vector_width_float) >= 16 and not narrow(params)


def oc_block_choices(params: Params) -> tuple[int, ...]:
    """The OC_BLOCKS (output slices of 16 per work-item) this convolution allows: 1 always; 2 and 4 with VEC16,
    groups 1, no block-diagonal weights and output channels a multiple of 16 * OC_BLOCKS."""
    a = params.attrs_as(ConvolutionAttrs)
    oc = params.inputs[1].shape[0]
    if not vec16(params) or a.groups != 1 or a.block_diagonal > 1:
        return (1,)
    return (1,) + tuple(n for n in (2, 4) if oc % (16 * n) == 0)


def flat(params: Params) -> bool:
    """FLAT: a 1x1 stride-1 unpadded dense convolution (groups 1) on b_fs_yx_fsv16 input without x padding, over
    more than one output row. Its input pixels are then contiguous across rows, so the work-items tile the OH * OW
    pixels as one row and only the end of the map is recomputed by a shifted last block, not the end of every row
    (P = 4 or 5 on 7-, 13- and 14-wide rows computes 8 pixels for 7 and 15 for 13 and 14; flat, 50 for 49, 174 for
    169 and 198 for 196). Devices with 16-wide vectors keep rows: their OC_BLOCKS rules were measured on rows."""
    a = params.attrs_as(ConvolutionAttrs)
    x, w = params.inputs[0], params.inputs[1]
    return (tuple(w.shape[2:]) == (1, 1) and tuple(a.stride) == (1, 1) and tuple(a.pad) == (0, 0)
            and tuple(a.pad_end) == (0, 0) and a.groups == 1 and a.block_diagonal == 1
            and x.format == Format.b_fs_yx_fsv16 and x.padding.lower[3] == 0 and x.padding.upper[3] == 0
            and params.output.dims4[2] > 1 and not vec16(params))


def row_pixels(params: Params) -> int:
    """The pixels the work-items tile as one row: OH * OW when :func:`flat`, else OW."""
    b, f, y, x = params.output.dims4
    return y * x if flat(params) else x


def only_loop_order_0(params: Params) -> bool:
    """True for depthwise and block-diagonal convolutions: only LOOP_ORDER 0 skips what they do not read."""
    a = params.attrs_as(ConvolutionAttrs)
    depthwise = a.groups > 1 and a.groups == params.inputs[0].dims4[1] == params.inputs[1].shape[0]
    return depthwise or a.block_diagonal > 1


SPATIAL_BLOCK_LIMIT = 4
"""P for a filter wider than 1x1 on two-float8 devices, with LOOP_ORDER 2 (a 3x3 stride-1 filter: 5). Measured on
the pip PoCL, Zen 4 (``benchmarks/conv_kernels.py --blocks 4 5 6 --loop-order 0 2``, 2026-11-27): P = 6 lost
everywhere on 3x3 layers (with LOOP_ORDER 2 by 1.5-2.4x: 12 accumulators, 2 weights, a broadcast and the tap
addresses overflow 16 ymm registers); LOOP_ORDER 2 at P = 4 or 5 won or tied on every ResNet-50 3x3 shape: 3x3/2
128 @ 56 1.67 ms against 2.38-2.41 for LOOP_ORDER 0 at any P (the priority rules' P = 6 / LOOP_ORDER 0 ran 3.8 ms
in the untuned int8 ResNet-50), 3x3/2 512 @ 14 2.17 against 2.35, 3x3 512 @ 7 2.27 against 2.72, 3x3 256 @ 14
(P = 5) 1.60 against 1.91; stride 2 at P = 5 lost to P = 4 (2.24 against 1.67 ms), and so did GoogLeNet's 5x5
32 -> 96 @ 27 (1.91 against 0.75 ms tuned at P = 4). The shipped tuning cache had found the same: LOOP_ORDER 2 for
25 of its 34 3x3 and 5x5 winners, P 3-5."""


def spatial_block_limit(params: Params) -> int:
    """:data:`SPATIAL_BLOCK_LIMIT`, or 5 for a 3x3 (or narrower) stride-1 filter."""
    a = params.attrs_as(ConvolutionAttrs)
    return 5 if params.inputs[1].shape[3] <= 3 and a.stride[1] == 1 else SPATIAL_BLOCK_LIMIT


def spatial_rule(params: Params) -> bool:
    """True when :func:`spatial_block_limit` and LOOP_ORDER 2 apply: a filter wider than 1x1 on b_fs_yx_fsv16
    input (not the plain first layer), all three loop orders allowed, two float8 accumulators per pixel."""
    return (tuple(params.inputs[1].shape[2:]) != (1, 1) and params.inputs[0].format == Format.b_fs_yx_fsv16
            and not only_loop_order_0(params) and not vec16(params))


@register
class ConvolutionKernelBFsYxFsv16(KernelBase):
    """Blocked direct convolution: one work-item computes 16 output channels x P output pixels of one row.

    Inputs: INPUT0 (N, C, H, W) in ``b_fs_yx_fsv16`` (y/x/batch padding allowed; or, for a first layer of at
    most PLAIN_INPUT_MAX_CHANNELS channels with groups 1, in plain ``bfyx``: INPUT_PLAIN, no reorder), INPUT1 weights
    (OC, C/groups, KH, KW) in ``os_iyx_osv16`` (unpadded), INPUT2 bias (OC,) plain and unpadded when present.
    Output (N, OC, OH, OW) in ``b_fs_yx_fsv16``, padding allowed (the interior is written, block tails are not), or
    in ``bfyx`` (OUTPUT_PLAIN: only the real channels, for a narrow head where fsv16 writes 16 lanes per pixel).
    Data types: each of input, weights, bias and output f32 or f16 (half storage), in any mix.
    Groups: 1, depthwise (groups == C == OC), or C/groups and OC/groups both multiples of 16; with groups 1 and
    ``block_diagonal`` G > 1 (dense weights of a densified grouped convolution) each work-item reads only the input
    channels of the groups its 16 output channels belong to (BLOCK_DIAG: at most 2 groups when OC/G >= 16, instead
    of all G; loop order 0). Bias and fused ops
    (activations, an eltwise with an operand of the output's shape) run in the epilogue; a channel shuffle of G
    groups fused last (SHUFFLE_GROUP, passes/fuse_shuffle_into_stores.py) stores output channel c at
    (c mod OC/G)·G + c div OC/G, lane by lane, in place of ShuffleNet's separate shuffle kernel.
    Variants by jit constant: CHECK_Y / CHECK_X (bounds checks when the input padding does not hold the halo),
    DEPTHWISE, INPUT_PLAIN, OUT_BLOCK = P (:func:`choose_block`), OC_BLOCKS (output slices per work-item), FLAT
    (:func:`flat`: a 1x1 stride-1 layer tiles its OH * OW pixels as one row).
    gws (ceil(OW/P), OH, ceil(OC/16) / OC_BLOCKS * N) (FLAT: (ceil(OH*OW/P), 1, ...)), lws (1, 1, 1).
    """

    name = "convolution_b_fs_yx_fsv16"
    primitive = "convolution"
    tier = "cpu"  # work-groups of one work-item, registers as the tile: shaped for CPU devices
    writes_padded_blocks = True  # out = output + OUTPUT_OFFSET + b, slice, y, x pitches
    supports_fused_ops = True  # through its own FUSED_OPS8 (fused_ops8_jit), not the jitter's scalar FUSED_OPS
    fused_op_kinds = frozenset({"activation", "eltwise", "shuffle_channels"})  # a channel shuffle fused last

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16, b_fs_yx_fsv16 (or, for a first layer, bfyx) in and b_fs_yx_fsv16 (or, for a narrow
        head, bfyx: OUTPUT_PLAIN) out, padding allowed."""
        fsv16 = frozenset({Format.b_fs_yx_fsv16})
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS, input_formats=fsv16 | {Format.bfyx},
                            output_formats=fsv16 | {Format.bfyx})

    def validate(self, params: Params) -> str | None:
        """Weights os_iyx_osv16 f32 or f16 unpadded; bias plain f32 or f16 unpadded; a supported grouping; rank-4
        data."""
        x, w = params.inputs[0], params.inputs[1]
        if x.rank != 4:
            return f"input rank {x.rank} is not 4"
        if w.format != Format.os_iyx_osv16 or not w.padding.is_zero or w.dtype not in FLOATS:
            return (f"weights must be f32 or f16 os_iyx_osv16 without padding, got {w.dtype.value} {w.format.value}"
                    f"{'' if w.padding.is_zero else ' padded'}")
        if len(params.inputs) > 2:
            bias = params.inputs[2]
            contiguous = bias.format in (Format.bfyx, Format.oiyx) or sum(d > 1 for d in bias.dims4) <= 1
            if (bias.format.is_blocked or not contiguous or not bias.padding.is_zero
                    or bias.dtype not in FLOATS or bias.count() != w.shape[0]):
                return f"bias must be {w.shape[0]} plain unpadded f32 or f16 values, got {bias}"
        ops, shuffle = trailing_shuffle(params.fused_ops)
        if shuffle and (params.output.format != Format.b_fs_yx_fsv16 or params.output.dims4[1] % shuffle):
            return (f"a fused channel shuffle of {shuffle} groups needs a b_fs_yx_fsv16 output with channels "
                    f"divisible by it, got {params.output.format.value} with {params.output.dims4[1]} channels")
        reason = fused_ops8_reason(dataclasses.replace(params, fused_ops=ops) if shuffle else params)
        if reason is not None:
            return reason
        g = params.attrs_as(ConvolutionAttrs).groups
        c, oc, icg = x.dims4[1], w.shape[0], w.shape[1]
        bd = params.attrs_as(ConvolutionAttrs).block_diagonal
        if x.format == Format.bfyx and (g != 1 or bd > 1 or c > PLAIN_INPUT_MAX_CHANNELS):
            return (f"bfyx input needs groups 1 and at most {PLAIN_INPUT_MAX_CHANNELS} channels (a first layer), got "
                    f"{c} channels, groups {g}, block_diagonal {bd}")
        if bd > 1 and (g != 1 or oc % bd or icg % bd):
            return f"block_diagonal={bd} needs groups 1 and channels divisible by it (groups {g}, {icg} -> {oc})"
        if g > 1 and not (g == c == oc) and (icg % 16 or (oc // g) % 16):
            return (f"groups={g} with {icg} input and {oc // g} output channels per group: needs both multiples "
                    f"of 16 (or depthwise groups == C == OC)")
        return None

    def priority(self, params: Params) -> int:
        """Well below the reference: it wins whenever it validates. A plain (bfyx) output, meant for the narrow
        heads the layout optimizer asks for, is FORCE_PRIORITY_5: when the layout optimizer weighs a plain layout
        against the blocked one for any other convolution, the blocked output (3) wins."""
        return FORCE_PRIORITY_5 if params.output.format == Format.bfyx else FORCE_PRIORITY_3

    def oc_blocks(self, params: Params) -> int:
        """OC_BLOCKS without a tuned winner. 1x1 convolutions only (where it measured faster on Zen 5, best of 40
        runs, ``benchmarks/conv_kernels.py --oc-blocks 1 2 4``): rows of 48+ pixels take 4 slices x P=6 (1x1
        256->64 @56: 380 vs 316-362 GFLOP/s), rows of at most 16 pixels take 2 (a short row caps P, and a second
        slice restores the weight reuse: 1x1 1024->256 @14: 384-428 vs 331-382, 2048->512 @7: 389 vs 319).
        3x3 and rows of 17-47 pixels measured equal within noise: 1. A choice must divide the output slices
        (:func:`oc_block_choices`) and leave at least 4 work-items per compute unit."""
        choices = oc_block_choices(params)
        kh, kw = params.inputs[1].shape[2:]
        b, f, y, x = params.output.dims4
        want = 1 if (kh, kw) != (1, 1) else 4 if x >= 48 else 2 if x <= 16 else 1
        for n in sorted(choices, reverse=True):
            if n > want:
                continue
            items = -(-x // self.block(params, n)) * y * (f // (16 * n)) * b
            if n == 1 or items >= 4 * max(1, int(params.caps.compute_units)):
                return n
        return 1

    def block(self, params: Params, oc_blocks: int = 1) -> int:
        """P, the output pixels per work-item: :func:`choose_block` of the output width (up to
        VEC16_BLOCK_LIMIT[oc_blocks] with float16 accumulators: 32 zmm registers hold OC_BLOCKS * P accumulators,
        the weights and a broadcast; up to :func:`spatial_block_limit` for a filter wider than 1x1 with two float8)."""
        if vec16(params):
            limit = VEC16_BLOCK_LIMIT[oc_blocks]
        elif spatial_rule(params):
            limit = spatial_block_limit(params)
        else:
            limit = MAX_BLOCK
        return choose_block(row_pixels(params), limit)

    @staticmethod
    def row_blocks(params: Params, block: int) -> int:
        """Pixel blocks of one row per work-item (ROW_BLOCKS), run one after the other: ROW_BLOCKS_CPU (but no more
        than the row has) on a CPU device, where each work-group costs PoCL a fixed launch and fewer, longer ones
        were 2-11% faster on ResNet-50 / ShuffleNet / SqueezeNet layer shapes (same-process A/B on the pip PoCL:
        1 vs 2 vs 4 vs 8 vs 16, 4 best or within noise of the best); 1 elsewhere (a GPU wants every work-item)."""
        if params.caps.device_type != "cpu":
            return 1
        return max(1, min(ROW_BLOCKS_CPU, -(-row_pixels(params) // block)))

    def loop_order(self, params: Params) -> int:
        """LOOP_ORDER without a tuned winner: 0 (taps outside the input-channel slices), the order measured fastest
        on ResNet-50's 1x1 shapes (``benchmarks/conv_kernels.py --loop-order 0 1 2``), or 2 (channel by channel,
        every tap of a channel in a row) for wider filters (:func:`spatial_rule`); the others are tuning variants."""
        return 2 if spatial_rule(params) else 0

    def default_variant(self, params: Params) -> dict[str, int]:
        """The variant the priority rules choose: ``{"block", "loop_order", "oc_blocks"}``."""
        n = self.oc_blocks(params)
        return {"block": self.block(params, n), "loop_order": 0 if only_loop_order_0(params) else
                self.loop_order(params), "oc_blocks": n}

    def tune_variants(self, params: Params) -> list[dict[str, int]]:
        """``{"block": P, "loop_order": 0 | 1 | 2, "oc_blocks": 1 | 2 | 4}`` for each P of TUNE_BLOCKS (VEC16:
        VEC16_TUNE_BLOCKS up to VEC16_BLOCK_LIMIT[oc_blocks]) not wider than the output row (the row itself if
        narrower), each loop order (only 0 for depthwise) and each of :func:`oc_block_choices`, the priority
        rules' choice first."""
        ow = row_pixels(params)
        first = self.default_variant(params)
        out = [first]
        blocks = VEC16_TUNE_BLOCKS if vec16(params) else TUNE_BLOCKS
        only_0 = only_loop_order_0(params)
        for n in oc_block_choices(params):
            limit = VEC16_BLOCK_LIMIT[n] if vec16(params) else max(blocks)
            for p in blocks if ow >= blocks[0] else (ow,):
                for so in (0,) if only_0 else (0, 1, 2):
                    v = {"block": p, "loop_order": so, "oc_blocks": n}
                    if p <= ow and (p <= limit or p == blocks[0]) and v != first:
                        out.append(v)
        return out

    def jit_constants(self, params: Params, block: int | None = None,
                      loop_order: int | None = None, oc_blocks: int | None = None) -> JitConstants:
        """Tensors, conv geometry, OUT_BLOCK, LOOP_ORDER, OC_BLOCKS, IC slices, CHECK_Y / CHECK_X, DEPTHWISE, FLAT,
        LOAD_FORM (1: vload8/vstore8 where the device probe found them faster, 0: aligned float8 pointers; f32 tensors
        only), the NAME_IS_HALF flags and call-free half loads (:func:`half_flags_jit`, :func:`inline_half_jit`) and
        the pixel stores CONV_STORE_PIXEL / CONV_PLAIN_PIXEL (common.cl's float forms for an f32 output).

        Raises ValueError for an ``oc_blocks`` this convolution does not allow (:func:`oc_block_choices`)."""
        j = super().jit_constants(params).update(half_flags_jit(params))
        j.update(inline_half_jit({f"INPUT{i}": x for i, x in enumerate(params.inputs)}))
        j.update(fsv16_store_jit("CONV_STORE_PIXEL", params.output.dtype))
        j.update(plain_store_jit("CONV_PLAIN_PIXEL", params.output.dtype))
        a = params.attrs_as(ConvolutionAttrs)
        oc, icg, kh, kw = params.inputs[1].shape
        n = self.oc_blocks(params) if oc_blocks is None else oc_blocks
        if n not in oc_block_choices(params):
            raise ValueError(f"oc_blocks={n} is not one of {oc_block_choices(params)} for this convolution")
        g = a.groups
        depthwise = g > 1 and g == params.inputs[0].dims4[1] == oc
        check_y, check_x = needs_checks(params)
        bd = a.block_diagonal if g == 1 else 1
        if bd > 1:  # only loop order 0 and the border path skip the zero blocks
            loop_order = 0
        j.update({"BLOCK_DIAG": int(bd > 1), "BD_OFM": oc // bd, "BD_IFM": icg // bd})
        p = min(block or self.block(params, n), row_pixels(params))
        j.update({"STRIDE_Y": a.stride[0], "STRIDE_X": a.stride[1],
                  "DILATION_Y": a.dilation[0], "DILATION_X": a.dilation[1],
                  "PAD_Y": a.pad[0], "PAD_X": a.pad[1], "GROUPS": g,
                  "FILTER_IFM_NUM": icg, "FILTER_OFM_PER_GROUP": oc // g,
                  "FILTER_SIZE_Y": kh, "FILTER_SIZE_X": kw, "BIAS_TERM": int(len(params.inputs) > 2),
                  "OUT_BLOCK": p,
                  "ROW_BLOCKS": self.row_blocks(params, p),
                  "OC_BLOCKS": n,
                  "IC_FULL_SLICES": icg // 16, "IC_REM": icg % 16,
                  "IC_REM_ROLLED": int(IC_REM_ROLLED and icg >= 16),
                  "CHECK_Y": int(check_y), "CHECK_X": int(check_x), "DEPTHWISE": int(depthwise),
                  "INPUT_PLAIN": int(params.inputs[0].format == Format.bfyx),
                  "OUTPUT_PLAIN": int(params.output.format == Format.bfyx),
                  "LOOP_ORDER": self.loop_order(params) if loop_order is None else loop_order,
                  "LOAD_FORM": int(params.device_caps.get("load_form") == "vload"),
                  "VEC16": int(vec16(params)), "FLAT": int(flat(params))})
        return j

    def dispatch(self, params: Params, block: int | None = None,
                 oc_blocks: int | None = None) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (ceil(ceil(OW / P) / ROW_BLOCKS), OH, ceil(OC / 16) / OC_BLOCKS * N), with FLAT (ceil(ceil(OH * OW /
        P) / ROW_BLOCKS), 1, ...): neighbouring work-items share their slices' weights; lws (1, 1, 1)."""
        b, f, y, _ = params.output.dims4
        row = row_pixels(params)
        n = self.oc_blocks(params) if oc_blocks is None else oc_blocks
        p = min(block or self.block(params, n), row)
        nb = -(-row // p)
        return (-(-nb // self.row_blocks(params, p)), 1 if flat(params) else y, -(-f // 16) // n * b), (1, 1, 1)

    def kernel_data(self, params: Params, variant: dict[str, int] | None = None) -> KernelData:
        """One enqueue (fused ops' extra inputs appended to the arguments); ``variant`` overrides ``block`` (P),
        ``loop_order`` and ``oc_blocks`` (auto-tuning and benchmarks time several)."""
        v = variant or {}
        n = v.get("oc_blocks", self.oc_blocks(params) if "block" not in v else 1)
        jit = self.jit_constants(params, v.get("block"), v.get("loop_order"), n)
        ops, shuffle = trailing_shuffle(params.fused_ops)
        jit.update(fused_ops8_jit(ops, params.output.dims4[1]))
        jit.update({"SHUFFLE_GROUP": shuffle, "SHUFFLE_GROUP_SIZE": params.output.dims4[1] // max(shuffle, 1)})
        args = self.args(params) + [Arg("input", i) for op in params.fused_ops for i in op.dep_indices]
        entry, src = self.make_source(jit)
        gws, lws = self.dispatch(params, v.get("block"), n)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, args)])
