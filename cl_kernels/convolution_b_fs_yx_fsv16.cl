// Blocked direct convolution (oneDNN / clDNN convolution_gpu_bfyx_f16 style), tuned for PoCL on a CPU.
// INPUT0 b_fs_yx_fsv16, INPUT1 weights os_iyx_osv16 [OC/16][IC/groups][KH][KW][16], INPUT2 bias (OC,) plain,
// OUTPUT b_fs_yx_fsv16 (or bfyx: OUTPUT_PLAIN, a narrow head's few channels). One work-item = 16 output channels x OUT_BLOCK output pixels of one row;
// gws = (ceil(ceil(OW / OUT_BLOCK) / ROW_BLOCKS), OH, ceil(OC / 16) * B), lws = (1, 1, 1); a work-item runs
// ROW_BLOCKS blocks of its row in turn.
// Accumulators: two float8 per pixel. Per input channel and tap: the 16 weights as two aligned float8, one input
// scalar broadcast per pixel, a*b+c. No vload/vstore/fma()/min()/clamp() builtins: on the pip PoCL they are
// calls, and a call spills every register (the pip PoCL; cldnn_py/device_probe.py measures it).
// The last block of a row is shifted left (ox0 = OW - OUT_BLOCK) instead of running a shorter tail: it recomputes
// a few pixels of its neighbour, so the inner loop stays uniform, but stores only its own (the neighbour may have
// summed them by the other path, interior or border, a rounding apart: two stores would race).
// CHECK_Y / CHECK_X: 0 when the input's padding holds the whole halo (read without checks; it must be zero).
// CHECK_Y skips rows outside the input. CHECK_X: work-items whose taps stay inside the row run the same unchecked
// loops; the others copy, per row and input slice, the span of input they need into a private zero-padded row.
// FLAT (a 1x1 stride-1 unpadded convolution whose input pixels are contiguous: no x padding): the OH * OW output
// pixels are one row (gws y = 1), so the blocks tile the whole map and only its very end is recomputed, instead of
// the end of every row; the epilogue finds each pixel's (y, x).
// Fused ops: FUSED_OPS8(v, b, f, y, x) applies them to the float8 v of channels f..f+7 (from the kernel's Python
// side: call-free vector forms where it can, lane by lane otherwise); extra inputs arrive as FUSED_OPS_ARGS.
// SHUFFLE_GROUP G > 0: a channel shuffle fused last; each pixel's 16 channels are stored one by one at their shuffled
// channels (c mod OC/G)·G + c div OC/G (ShuffleNet: the shuffle kernel's pass over the tensor disappears).
// DEPTHWISE: groups == IC == OC; each pixel's 16 input channels are loaded as two float8 and multiplied lane-wise.
// Storage: each of input, weights, bias and output may be f32 or f16 (half storage, issue 18): reads go through
// IN_LD8 / W_LD8 / B_LD8 / IN_LD16 / W_LD16 below and NAME_ILOAD (common/inline_half.py: call-free for half), the
// stores through CONV_STORE_PIXEL / CONV_PLAIN_PIXEL (common/fsv16_store.py); for f32 all of them are exactly the
// float forms above. The private border row and every accumulator stay float.

#define OCS ((OUTPUT_FEATURE_NUM + 15) / 16)
#if FLAT
#define ROW_PIXELS (OUTPUT_SIZE_X * OUTPUT_SIZE_Y)  // pixels along the work-items' "row"
#else
#define ROW_PIXELS OUTPUT_SIZE_X
#endif
#define OCG (OCS / OC_BLOCKS)  // work-items along the output channels (OC_BLOCKS divides OCS)
#define W_TAP_PITCH (FILTER_SIZE_Y * FILTER_SIZE_X * 16)
// INPUT_PLAIN: INPUT0 in bfyx (a first layer of at most 8 channels, read where the network input lies instead of
// through a reorder to b_fs_yx_fsv16 that writes 16 lanes per pixel); IN_XP / IN_LP: elements between neighbouring
// pixels of a row / channels. The private border row keeps the fsv16 form (16 lanes per pixel) either way.
#if INPUT_PLAIN
#define IN_XP 1
#define IN_LP INPUT0_FEATURE_PITCH
#else
#define IN_XP 16
#define IN_LP 1
#endif
#define IN_STEP_X (STRIDE_X * IN_XP)
#define SPAN ((OUT_BLOCK - 1) * STRIDE_X + (FILTER_SIZE_X - 1) * DILATION_X + 1)  // input pixels of one block row
#if LOAD_FORM  // the device probe (cldnn_py/device_probe.py) found vload8 as fast as pointers on this device
#define LD8(p, i) vload8((i), (p))
#else
#define LD8(p, i) (((const __global float8*)(p))[i])
#endif
// Per-tensor float8 loads, float8 number i at p (16-byte aligned for half, 32 for float): LD8 for f32, the
// call-free NAME_ALOAD8 for half.
#if INPUT0_IS_HALF
#define IN_LD8(p, i) INPUT0_ALOAD8(p, (i) * 8)
#else
#define IN_LD8(p, i) LD8(p, i)
#endif
#if INPUT1_IS_HALF
#define W_LD8(p, i) INPUT1_ALOAD8(p, (i) * 8)
#else
#define W_LD8(p, i) LD8(p, i)
#endif
#if INPUT2_IS_HALF
#define B_LD8(p, i) INPUT2_ALOAD8(p, (i) * 8)
#else
#define B_LD8(p, i) LD8(p, i)
#endif
#define ROW_LD(p, i) ((p)[i])  // the private border row (float)
#define KX_UNROLL __attribute__((opencl_unroll_hint(FILTER_SIZE_X <= 8 ? FILTER_SIZE_X : 1)))
// VEC16 (devices whose native float vector is 16 wide, AVX-512): one float16 accumulator per pixel and output
// slice, float16 weights/rows; otherwise two float8 (AVX2). W_DECL loads the 16 weights of each of the OC_BLOCKS
// output slices at a pointer (slice o at + o * W_OC_PITCH), W_FMA adds scalar x times them to pixel p, DW_FMA adds
// the 16 input channels at a pointer times them (depthwise), ROW_* the private row. OC_BLOCKS > 1 (VEC16, groups 1
// only): a work-item computes OC_BLOCKS * 16 output channels, so each broadcast input feeds OC_BLOCKS FMAs and the
// loads per FMA drop from (P + 1) / P to (P + OC_BLOCKS) / (OC_BLOCKS * P) (the oneDNN AVX-512 kernels' 2-4 oc blocks).
#define W_OC_PITCH (16 * FILTER_IFM_NUM * FILTER_SIZE_Y * FILTER_SIZE_X)
#if VEC16
#define LD16(p) (((const __global float16*)(p))[0])
// 16 halves: two inlined conversions where common.cl has them (F16C), else one vload_half16 (Oclgrind 21.10's
// uninitialized-value checker crashes on two vload_half8 joined into a float16)
#if defined(__F16C__) && defined(__AVX__)
#define HALF_LD16(p) ((float16)(cldnn_load_half8_aligned(p), cldnn_load_half8_aligned((p) + 8)))
#else
#define HALF_LD16(p) vload_half16(0, (p))
#endif
#if INPUT0_IS_HALF
#define IN_LD16(p) HALF_LD16(p)
#else
#define IN_LD16(p) LD16(p)
#endif
#if INPUT1_IS_HALF
#define W_LD16(p) HALF_LD16(p)
#else
#define W_LD16(p) LD16(p)
#endif
#define W_DECL(wp) float16 w16[OC_BLOCKS]; \
        __attribute__((opencl_unroll_hint)) \
        for (int o = 0; o < OC_BLOCKS; ++o) w16[o] = W_LD16((wp) + o * W_OC_PITCH);
#define W_FMA(p, x) __attribute__((opencl_unroll_hint)) for (int o = 0; o < OC_BLOCKS; ++o) \
        a[o][p] = (x) * w16[o] + a[o][p];
#define DW_FMA(p, ptr) a[0][p] = IN_LD16(ptr) * w16[0] + a[0][p];
#define ROW_T float16
#define ROW_LEN SPAN
#define ROW_SET(q, ptr) row[q] = IN_LD16(ptr);
#define ROW_ZERO(q) row[q] = (float16)(0.0f);
#define DW_ROW_FMA(p, q) a[0][p] = row[q] * w16[0] + a[0][p];
#define ACC_LO(o, p) a[o][p].lo
// lane by lane, not .hi: Oclgrind 21.10's uninitialized-value checker flags the upper half of a float16 taken with
// .hi / .s89abcdef (a false positive; LLVM folds both forms into the same shuffle on PoCL)
#define ACC_HI(o, p) (float8)(a[o][p].s8, a[o][p].s9, a[o][p].sa, a[o][p].sb, a[o][p].sc, a[o][p].sd, a[o][p].se, \
                              a[o][p].sf)
#else
#define W_DECL(wp) const float8 w0 = W_LD8(wp, 0); const float8 w1 = W_LD8(wp, 1);
#define W_FMA(p, x) a0[p] = (x) * w0 + a0[p]; a1[p] = (x) * w1 + a1[p];
#define DW_FMA(p, ptr) a0[p] = IN_LD8(ptr, 0) * w0 + a0[p]; a1[p] = IN_LD8(ptr, 1) * w1 + a1[p];
#define ROW_T float8
#define ROW_LEN (2 * SPAN)
#define ROW_SET(q, ptr) row[2 * (q)] = IN_LD8(ptr, 0); row[2 * (q) + 1] = IN_LD8(ptr, 1);
#define ROW_ZERO(q) row[2 * (q)] = (float8)(0.0f); row[2 * (q) + 1] = (float8)(0.0f);
#define DW_ROW_FMA(p, q) a0[p] = row[2 * (q)] * w0 + a0[p]; a1[p] = row[2 * (q) + 1] * w1 + a1[p];
#define ACC_LO(o, p) a0[p]
#define ACC_HI(o, p) a1[p]
#endif
#if INPUT_PLAIN  // IC_REM (<= 8) channels FEATURE_PITCH apart into the pixel's 16 lanes, the rest zero
#define ROW_SET_IN(q, ptr) { \
        ROW_ZERO(q) \
        __attribute__((opencl_unroll_hint)) \
        for (int c = 0; c < IC_REM; ++c) \
            ((float*)row)[(q) * 16 + c] = INPUT0_ILOAD(ptr, c * INPUT0_FEATURE_PITCH); \
    }
#else
#define ROW_SET_IN(q, ptr) ROW_SET(q, ptr)
#endif
#if CHECK_Y
#define SKIP_ROW if (iy < 0 || iy >= INPUT0_SIZE_Y) continue;
#else
#define SKIP_ROW
#endif

#if DEPTHWISE
// One tap at in_tap (global) / from the private row (border): 16 channels of each pixel times 16 weights.
#define TAP_BODY { \
        W_DECL(w_tap) \
        __attribute__((opencl_unroll_hint)) \
        for (int p = 0; p < OUT_BLOCK; ++p) { \
            DW_FMA(p, in_tap + p * IN_STEP_X) \
        } \
    }
#define ROW_TAP(L0, NL) { \
        W_DECL(w_tap) \
        __attribute__((opencl_unroll_hint)) \
        for (int p = 0; p < OUT_BLOCK; ++p) { \
            DW_ROW_FMA(p, p * STRIDE_X + kx * DILATION_X) \
        } \
    }
#define IN_SLICE_OF_GROUP 0
#else
// One input channel (lane l of the slice at ip, weights at wp): broadcast the input of each pixel.
// IC_STEP_AT(XS, LS, LD): the pixels XS apart, the channels LS apart, read by LD (the private row: always
// STRIDE_X * 16, 1 and ROW_LD).
#define IC_STEP_AT(XS, LS, LD) { \
        W_DECL(wp + l * W_TAP_PITCH) \
        __attribute__((opencl_unroll_hint)) \
        for (int p = 0; p < OUT_BLOCK; ++p) { \
            const float x = LD(ip, p * (XS) + l * (LS)); \
            W_FMA(p, x) \
        } \
    }
#define IC_STEP IC_STEP_AT(IN_STEP_X, IN_LP, INPUT0_ILOAD)
// The channels after the whole slices (IC_REM) as a loop (IC_REM_ROLLED) or unrolled: unrolled after a whole
// slice, the straight line of 16 + IC_REM channel steps spilled on the pip PoCL (24 -> 144 channels 1x1 at 56x56:
// 0.49 ms unrolled, 0.12 ms as a loop).
#if IC_REM_ROLLED
#define REM_UNROLL __attribute__((opencl_unroll_hint(1)))
#else
#define REM_UNROLL __attribute__((opencl_unroll_hint))
#endif
#if BLOCK_DIAG
// Block-diagonal dense weights (densify_grouped_convolutions): only the input channels [ic_lo, ic_hi) of the
// groups this work-item's 16 output channels belong to hold non-zero weights. The whole slices inside the range
// [s_full_lo, s_full_hi) run the dense kernel's unrolled 16 channels; the channels before and after them (a group
// boundary inside a slice), or a range inside one slice, run channel by channel.
#define BD_CHANNELS(C0, C1) \
        for (int c = (C0); c < (C1); ++c) { \
            const __global INPUT0_TYPE* ip = in_tap + (c >> 4) * INPUT0_FEATURE_PITCH; \
            const __global INPUT1_TYPE* wp = w_tap + (c & ~15) * W_TAP_PITCH; \
            const int l = c & 15; \
            IC_STEP \
        }
#define TAP_BODY { \
        if (s_full_lo < s_full_hi) { \
            BD_CHANNELS(ic_lo, s_full_lo * 16) \
            for (int s = s_full_lo; s < s_full_hi; ++s) { \
                const __global INPUT0_TYPE* ip = in_tap + s * INPUT0_FEATURE_PITCH; \
                const __global INPUT1_TYPE* wp = w_tap + s * 16 * W_TAP_PITCH; \
                __attribute__((opencl_unroll_hint)) \
                for (int l = 0; l < 16; ++l) IC_STEP \
            } \
            BD_CHANNELS(s_full_hi * 16, ic_hi) \
        } else { \
            BD_CHANNELS(ic_lo, ic_hi) \
        } \
    }
#else
// One tap at in_tap, every input channel of the group: IC_FULL_SLICES slices of 16, then IC_REM channels.
#define TAP_BODY { \
        const __global INPUT0_TYPE* ip = in_tap; \
        const __global INPUT1_TYPE* wp = w_tap; \
        for (int s = 0; s < IC_FULL_SLICES; ++s) { \
            __attribute__((opencl_unroll_hint)) \
            for (int l = 0; l < 16; ++l) IC_STEP \
            ip += INPUT0_FEATURE_PITCH; \
            wp += 16 * W_TAP_PITCH; \
        } \
        REM_UNROLL \
        for (int l = 0; l < IC_REM; ++l) IC_STEP \
    }
#endif
// One tap, channels L0 <= l < NL of the slice copied into the private row.
#define ROW_TAP(L0, NL) { \
        const float* ip = (const float*)row + kx * DILATION_X * 16; \
        const __global INPUT1_TYPE* wp = w_tap; \
        __attribute__((opencl_unroll_hint)) \
        for (int l = (L0); l < (NL); ++l) IC_STEP_AT(STRIDE_X * 16, 1, ROW_LD) \
    }
#define IN_SLICE_OF_GROUP (((ocs * 16) / FILTER_OFM_PER_GROUP) * (FILTER_IFM_NUM / 16))
#endif

// Interior work-items: every tap straight from the (padded) input, in one of three loop orders (auto-tuning picks;
// depthwise has only 0). LOOP_ORDER 0: taps outside, every input-channel slice per tap. LOOP_ORDER 1: slices
// outside the taps, so one slice's few input rows stay in L1 across its taps and its weights (16 channels x
// [KH][KW][16]) are one contiguous run. LOOP_ORDER 2 (below): channel by channel, all taps of a channel in a row.
#if LOOP_ORDER == 1 && !DEPTHWISE
#define SLICE_TAPS(S, NL) \
    for (int ky = 0; ky < FILTER_SIZE_Y; ++ky) { \
        const int iy = oy * STRIDE_Y - PAD_Y + ky * DILATION_Y; \
        SKIP_ROW \
        KX_UNROLL \
        for (int kx = 0; kx < FILTER_SIZE_X; ++kx) { \
            const __global INPUT0_TYPE* ip = in_b + ((S) * INPUT0_FEATURE_PITCH + iy * INPUT0_Y_PITCH \
                                                     + (ox0 * STRIDE_X - PAD_X + kx * DILATION_X) * IN_XP); \
            const __global INPUT1_TYPE* wp = w_oc + ((S) * 16 * W_TAP_PITCH + (ky * FILTER_SIZE_X + kx) * 16); \
            __attribute__((opencl_unroll_hint)) \
            for (int l = 0; l < (NL); ++l) IC_STEP \
        } \
    }
#define TAP_LOOPS { \
        for (int s = 0; s < IC_FULL_SLICES; ++s) SLICE_TAPS(s, 16) \
        if (IC_REM > 0) SLICE_TAPS(IC_FULL_SLICES, IC_REM) \
    }
#elif LOOP_ORDER == 2 && !DEPTHWISE
// LOOP_ORDER 2: channel by channel, every tap of a channel before the next: the weights stream in storage order.
#define CHANNEL_TAPS(S, NL) { \
        const __global INPUT0_TYPE* ip_s = in_b + ((S) * INPUT0_FEATURE_PITCH + oy * STRIDE_Y * INPUT0_Y_PITCH \
                                                   + (ox0 * STRIDE_X - PAD_X) * IN_XP - PAD_Y * INPUT0_Y_PITCH); \
        const __global INPUT1_TYPE* wp = w_oc + (S) * 16 * W_TAP_PITCH; \
        for (int l = 0; l < (NL); ++l) { \
            for (int ky = 0; ky < FILTER_SIZE_Y; ++ky) { \
                const int iy = oy * STRIDE_Y - PAD_Y + ky * DILATION_Y; \
                SKIP_ROW \
                KX_UNROLL \
                for (int kx = 0; kx < FILTER_SIZE_X; ++kx) { \
                    const __global INPUT0_TYPE* ip = ip_s + (ky * DILATION_Y * INPUT0_Y_PITCH \
                                                             + kx * DILATION_X * IN_XP); \
                    W_DECL(wp + (ky * FILTER_SIZE_X + kx) * 16) \
                    __attribute__((opencl_unroll_hint)) \
                    for (int p = 0; p < OUT_BLOCK; ++p) { \
                        const float x = INPUT0_ILOAD(ip, p * IN_STEP_X + l * IN_LP); \
                        W_FMA(p, x) \
                    } \
                } \
            } \
            wp += W_TAP_PITCH; \
        } \
    }
#define TAP_LOOPS { \
        for (int s = 0; s < IC_FULL_SLICES; ++s) CHANNEL_TAPS(s, 16) \
        if (IC_REM > 0) CHANNEL_TAPS(IC_FULL_SLICES, IC_REM) \
    }
#else
#define TAP_LOOPS \
    for (int ky = 0; ky < FILTER_SIZE_Y; ++ky) { \
        const int iy = oy * STRIDE_Y - PAD_Y + ky * DILATION_Y; \
        SKIP_ROW \
        KX_UNROLL \
        for (int kx = 0; kx < FILTER_SIZE_X; ++kx) { \
            /* one int offset per tap: with a row pointer + kx, LLVM reuses broadcasts across taps and spills */ \
            const __global INPUT0_TYPE* in_tap = in_b + (iy * INPUT0_Y_PITCH \
                                                         + (ox0 * STRIDE_X - PAD_X + kx * DILATION_X) * IN_XP); \
            const __global INPUT1_TYPE* w_tap = w_oc + (ky * FILTER_SIZE_X + kx) * 16; \
            TAP_BODY \
        } \
    }
#endif
// Border work-items: for one row and input slice S, copy the SPAN pixels the block reads into row[] (zero outside
// the input), then every tap of that row over NL channels.
#define BORDER_SLICE(S, L0, NL) { \
        const __global INPUT0_TYPE* src = in_b + iy * INPUT0_Y_PITCH + (S) * INPUT0_FEATURE_PITCH; \
        const int ix_first = ox0 * STRIDE_X - PAD_X; \
        ROW_T row[ROW_LEN]; \
        __attribute__((opencl_unroll_hint(1))) /* a rolled copy keeps row[] in memory (no SROA into shuffles) */ \
        for (int q = 0; q < SPAN; ++q) { \
            const int ix = ix_first + q; \
            if (ix >= 0 && ix < INPUT0_SIZE_X) { \
                ROW_SET_IN(q, src + ix * IN_XP) \
            } else { \
                ROW_ZERO(q) \
            } \
        } \
        __attribute__((opencl_unroll_hint(1))) /* unrolled, LLVM shares broadcasts across taps and spills */ \
        for (int kx = 0; kx < FILTER_SIZE_X; ++kx) { \
            const __global INPUT1_TYPE* w_tap = w_oc + (S) * 16 * W_TAP_PITCH + (ky * FILTER_SIZE_X + kx) * 16; \
            ROW_TAP(L0, NL) \
        } \
    }
#if DEPTHWISE
#define BORDER_LOOPS \
    for (int ky = 0; ky < FILTER_SIZE_Y; ++ky) { \
        const int iy = oy * STRIDE_Y - PAD_Y + ky * DILATION_Y; \
        SKIP_ROW \
        BORDER_SLICE(0, 0, 16) \
    }
#else
#define BORDER_LOOPS \
    for (int ky = 0; ky < FILTER_SIZE_Y; ++ky) { \
        const int iy = oy * STRIDE_Y - PAD_Y + ky * DILATION_Y; \
        SKIP_ROW \
        BORDER_SLICES \
    }
#if BLOCK_DIAG
#define BORDER_SLICES \
        for (int s = ic_lo >> 4; s <= (ic_hi - 1) >> 4; ++s) { \
            const int l0 = ic_lo - s * 16 > 0 ? ic_lo - s * 16 : 0; \
            const int l1 = ic_hi - s * 16 < 16 ? ic_hi - s * 16 : 16; \
            BORDER_SLICE(s, l0, l1) \
        }
#else
#define BORDER_SLICES \
        for (int s = 0; s < IC_FULL_SLICES; ++s) BORDER_SLICE(s, 0, 16) \
        if (IC_REM > 0) BORDER_SLICE(IC_FULL_SLICES, 0, IC_REM)
#endif
#endif

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(convolution_b_fs_yx_fsv16)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* weights,
#if BIAS_TERM
                                  const __global INPUT2_TYPE* bias,
#endif
                                  __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
  // ROW_BLOCKS consecutive pixel blocks of the row per work-item, one after the other (fewer, longer work-items:
  // PoCL's per-work-group cost is paid once for all of them)
  for (int rb = 0; rb < ROW_BLOCKS; ++rb) {
    const int ox_start = ((int)get_global_id(0) * ROW_BLOCKS + rb) * OUT_BLOCK;
    if (ROW_BLOCKS > 1 && ox_start >= ROW_PIXELS)
        break;
    const int oy = FLAT ? 0 : get_global_id(1);
    const int ocs = (get_global_id(2) % OCG) * OC_BLOCKS;  // the first of the work-item's output slices
    const int b = get_global_id(2) / OCG;
    const int ox0 = ox_start < ROW_PIXELS - OUT_BLOCK ? ox_start : ROW_PIXELS - OUT_BLOCK;

#if VEC16
    float16 a[OC_BLOCKS][OUT_BLOCK];
    __attribute__((opencl_unroll_hint))
    for (int o = 0; o < OC_BLOCKS; ++o) {
        __attribute__((opencl_unroll_hint))
        for (int p = 0; p < OUT_BLOCK; ++p)
            a[o][p] = (float16)(0.0f);
    }
#else
    float8 a0[OUT_BLOCK], a1[OUT_BLOCK];
    __attribute__((opencl_unroll_hint))
    for (int p = 0; p < OUT_BLOCK; ++p) {
        a0[p] = (float8)(0.0f);
        a1[p] = (float8)(0.0f);
    }
#endif
    const __global INPUT0_TYPE* in_b = input + INPUT0_OFFSET + b * INPUT0_BATCH_PITCH
                                       + (DEPTHWISE ? ocs : IN_SLICE_OF_GROUP) * INPUT0_FEATURE_PITCH;
    const __global INPUT1_TYPE* w_oc = weights + ocs * W_OC_PITCH;
#if BLOCK_DIAG
    const int oc_last = ocs * 16 + 15 < OUTPUT_FEATURE_NUM ? ocs * 16 + 15 : OUTPUT_FEATURE_NUM - 1;
    const int ic_lo = (ocs * 16 / BD_OFM) * BD_IFM;
    const int ic_hi = (oc_last / BD_OFM + 1) * BD_IFM;
    const int s_full_lo = (ic_lo + 15) >> 4;  // the whole 16-channel slices inside [ic_lo, ic_hi)
    const int s_full_hi = ic_hi >> 4;
#endif

#if CHECK_X
    if (ox0 * STRIDE_X - PAD_X >= 0
        && (ox0 + OUT_BLOCK - 1) * STRIDE_X - PAD_X + (FILTER_SIZE_X - 1) * DILATION_X < INPUT0_SIZE_X) {
        TAP_LOOPS
    } else {
        BORDER_LOOPS
    }
#else
    TAP_LOOPS
#endif

    // Epilogue, per output slice: bias, fused ops (8 channels at a time), then 16 channels per pixel into the
    // interior of the (possibly padded) output.
    __attribute__((opencl_unroll_hint))
    for (int o = 0; o < OC_BLOCKS; ++o) {
        const int oc0 = (ocs + o) * 16;
#if BIAS_TERM
#if OUTPUT_FEATURE_NUM % 16 == 0
        const float8 b0 = B_LD8(bias + oc0, 0);
        const float8 b1 = B_LD8(bias + oc0, 1);
#else
        float bb[16];
        __attribute__((opencl_unroll_hint))
        for (int i = 0; i < 16; ++i)
            bb[i] = INPUT2_ILOAD(bias, oc0 + i < OUTPUT_FEATURE_NUM ? oc0 + i : OUTPUT_FEATURE_NUM - 1);
        const float8 b0 = (float8)(bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7]);
        const float8 b1 = (float8)(bb[8], bb[9], bb[10], bb[11], bb[12], bb[13], bb[14], bb[15]);
#endif
#else
        const float8 b0 = (float8)(0.0f);
        const float8 b1 = (float8)(0.0f);
#endif
#if OUTPUT_PLAIN  // bfyx output (a narrow head): channel 0 of the slice at out, the pixels 1 apart
        __global OUTPUT_TYPE* out = output + OUTPUT_OFFSET + b * OUTPUT_BATCH_PITCH + oc0 * OUTPUT_FEATURE_PITCH
                                    + (FLAT ? 0 : oy * OUTPUT_Y_PITCH + ox0);
        const int n_real = OUTPUT_FEATURE_NUM - oc0 < 16 ? OUTPUT_FEATURE_NUM - oc0 : 16;
#else
        __global OUTPUT_TYPE* out = output + OUTPUT_OFFSET + b * OUTPUT_BATCH_PITCH + (ocs + o) * OUTPUT_FEATURE_PITCH
                                    + (FLAT ? 0 : oy * OUTPUT_Y_PITCH + ox0 * 16);
#endif
#if SHUFFLE_GROUP  // a fused channel shuffle: channel c goes to (c mod GS)·G + c div GS, offsets from `out`
        int shuf[16];
        __attribute__((opencl_unroll_hint))
        for (int i = 0; i < 16; ++i) {
            const int c = oc0 + i < OUTPUT_FEATURE_NUM ? oc0 + i : OUTPUT_FEATURE_NUM - 1;
            const int d = (c % SHUFFLE_GROUP_SIZE) * SHUFFLE_GROUP + c / SHUFFLE_GROUP_SIZE;
            shuf[i] = (d / 16 - (ocs + o)) * OUTPUT_FEATURE_PITCH + d % 16;
        }
#endif
        __attribute__((opencl_unroll_hint))
        for (int p = 0; p < OUT_BLOCK; ++p) {
            if (ox0 + p < ox_start)
                continue;  // the shifted last block: its neighbour owns (and writes) these pixels
#if FLAT  // the pixel's (y, x) in the map; `out` is at (0, 0)
            const int py = (ox0 + p) / OUTPUT_SIZE_X;
            const int px = ox0 + p - py * OUTPUT_SIZE_X;
            const int po = py * OUTPUT_Y_PITCH + px * (OUTPUT_PLAIN ? 1 : 16);
#else  // `out` is at (oy, ox0)
            const int py = oy;
            const int px = ox0 + p;
            const int po = p * (OUTPUT_PLAIN ? 1 : 16);
#endif
            float8 v0 = ACC_LO(o, p) + b0;
            float8 v1 = ACC_HI(o, p) + b1;
            FUSED_OPS8(v0, b, oc0, py, px);
            FUSED_OPS8(v1, b, oc0 + 8, py, px);
#if OUTPUT_PLAIN
            CONV_PLAIN_PIXEL(out + po, v0, v1, n_real, OUTPUT_FEATURE_PITCH);
            continue;
#endif
#if SHUFFLE_GROUP
            {
                union { float8 v[2]; float s[16]; } st;
                st.v[0] = v0;
                st.v[1] = v1;
                __attribute__((opencl_unroll_hint))
                for (int i = 0; i < 16; ++i)
                    if (oc0 + i < OUTPUT_FEATURE_NUM)
                        OUTPUT_STORE(out + po, shuf[i], st.s[i]);
            }
            continue;
#endif
            // the last slice of a channel count that is not a multiple of 16 writes only the real channels
            CONV_STORE_PIXEL(out + po, v0, v1, ocs + o == OCS - 1);
        }
    }
  }
}

#undef OCS
#undef ROW_PIXELS
#undef OCG
#undef W_OC_PITCH
#undef W_TAP_PITCH
#undef IN_STEP_X
#undef IN_XP
#undef IN_LP
#undef IC_STEP_AT
#undef ROW_SET_IN
#undef SPAN
#undef LD8
#undef IN_LD8
#undef W_LD8
#undef B_LD8
#undef ROW_LD
#undef IN_LD16
#undef W_LD16
#undef HALF_LD16
#undef KX_UNROLL
#undef SKIP_ROW
#undef TAP_BODY
#undef BD_CHANNELS
#undef ROW_TAP
#undef IN_SLICE_OF_GROUP
#undef IC_STEP
#undef REM_UNROLL
#undef TAP_LOOPS
#undef SLICE_TAPS
#undef CHANNEL_TAPS
#undef BORDER_SLICE
#undef BORDER_LOOPS
#undef BORDER_SLICES
#undef LD16
#undef W_DECL
#undef W_FMA
#undef DW_FMA
#undef ROW_T
#undef ROW_LEN
#undef ROW_SET
#undef ROW_ZERO
#undef DW_ROW_FMA
#undef ACC_LO
#undef ACC_HI
