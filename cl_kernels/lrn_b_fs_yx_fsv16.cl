// Blocked LRN across channels for CPU OpenCL (PoCL): INPUT0 and OUTPUT in b_fs_yx_fsv16, y/x/batch padding allowed.
// gws = (ceil(X / OUT_BLOCK), Y, B), lws = (1, 1, 1). One work-item walks the feature slices of OUT_BLOCK pixels
// of one row (a rolled loop over the pixels), so every input slice is loaded once: the squares of the current
// slice are two float8, the LRN_PRE last squares of the previous slice and the LRN_POST first squares of the
// next one (loaded one step ahead, it becomes the current slice) extend them into the private row e[], and the
// window sums of the 16 channels are LRN_SIZE float8 adds of shifted views of e[].
// Channels past the last (the block tail of the last slice, whatever it holds) count as zero, as the window is
// clipped to [0, C) in lrn_ref; the tail is never written.
// y = x * exp(-LRN_BETA * log(LRN_K + LRN_ALPHA_DIV_SIZE * sum)) on float8 (as lrn_ref, vector builtins: one call
// per 8 channels instead of one per element). Loads and stores are aligned float8 pointer accesses (INPUT0_LOAD8 /
// OUTPUT_STORE8: vload_half8 / vstore_half8_rte for half storage; the arithmetic is float either way).

#define LR_FS ((INPUT0_FEATURE_NUM + 15) / 16)
#define LR_LD8(p, i) INPUT0_LOAD8(p, (i) * 8)
#define LR_ST8(p, i, v) OUTPUT_STORE8(p, (i) * 8, v)
#define LR_E (LRN_PRE + 16 + LRN_POST)
#define LR_V8(a, o) ((float8)(a[(o)], a[(o) + 1], a[(o) + 2], a[(o) + 3], a[(o) + 4], a[(o) + 5], a[(o) + 6], \
                              a[(o) + 7]))

// base ** -LRN_BETA for base > 0. BETA_075 (beta == 0.75, AlexNet / GoogLeNet): 1 / sqrt(base * sqrt(base)),
// correctly rounded sqrt and divide instead of the exp / log builtins.
#if BETA_075
#define LR_SCALE(t) (1.0f / sqrt((t) * sqrt(t)))
#else
#define LR_SCALE(t) exp(-LRN_BETA * log(t))
#endif

#ifndef LRN_B_FS_YX_FSV16_HELPERS
#define LRN_B_FS_YX_FSV16_HELPERS
typedef union { float8 v[2]; float s[16]; } lrn_fsv16_slice;
#endif

// Squares of slice S's 16 channels at pointer P into SQ (lrn_fsv16_slice), channels >= C zeroed.
#define LR_SQUARES(SQ, P, S) { \
        const float8 l0_ = LR_LD8(P, 0); \
        const float8 l1_ = LR_LD8(P, 1); \
        SQ.v[0] = l0_ * l0_; \
        SQ.v[1] = l1_ * l1_; \
        if (INPUT0_FEATURE_NUM % 16 != 0 && (S) == LR_FS - 1) { \
            __attribute__((opencl_unroll_hint)) \
            for (int i_ = INPUT0_FEATURE_NUM % 16; i_ < 16; ++i_) SQ.s[i_] = 0.0f; \
        } \
    }

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(lrn_b_fs_yx_fsv16)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const int x_start = (int)get_global_id(0) * OUT_BLOCK;
    const int y = get_global_id(1);
    const int b = get_global_id(2);
    __attribute__((opencl_unroll_hint(1)))
    for (int p = 0; p < OUT_BLOCK; ++p) {
        const int x = x_start + p;
        if (x >= OUTPUT_SIZE_X)
            break;
        const __global INPUT0_TYPE* ip = input + INPUT0_OFFSET + b * INPUT0_BATCH_PITCH + y * INPUT0_Y_PITCH + x * 16;
        __global OUTPUT_TYPE* op = output + OUTPUT_OFFSET + b * OUTPUT_BATCH_PITCH + y * OUTPUT_Y_PITCH + x * 16;
        float e[LR_E];
        __attribute__((opencl_unroll_hint))
        for (int i = 0; i < LRN_PRE; ++i) e[i] = 0.0f;  // before channel 0
        lrn_fsv16_slice cur, nxt;
        LR_SQUARES(cur, ip, 0)
        __attribute__((opencl_unroll_hint(1)))
        for (int s = 0; s < LR_FS; ++s) {
            if (s + 1 < LR_FS) {
                LR_SQUARES(nxt, ip + (s + 1) * INPUT0_FEATURE_PITCH, s + 1)
            } else {
                nxt.v[0] = (float8)(0.0f);
                nxt.v[1] = (float8)(0.0f);
            }
            __attribute__((opencl_unroll_hint))
            for (int i = 0; i < 16; ++i) e[LRN_PRE + i] = cur.s[i];
            __attribute__((opencl_unroll_hint))
            for (int i = 0; i < LRN_POST; ++i) e[LRN_PRE + 16 + i] = nxt.s[i];
            float8 s0 = (float8)(0.0f);
            float8 s1 = (float8)(0.0f);
            __attribute__((opencl_unroll_hint))
            for (int j = 0; j < LRN_PRE + 1 + LRN_POST; ++j) {  // channel c - LRN_PRE + j, in lrn_ref's order
                s0 += LR_V8(e, j);
                s1 += LR_V8(e, j + 8);
            }
            const __global INPUT0_TYPE* is = ip + s * INPUT0_FEATURE_PITCH;
            const float8 v0 = LR_LD8(is, 0) * LR_SCALE(LRN_K + LRN_ALPHA_DIV_SIZE * s0);
            const float8 v1 = LR_LD8(is, 1) * LR_SCALE(LRN_K + LRN_ALPHA_DIV_SIZE * s1);
            __global OUTPUT_TYPE* os = op + s * OUTPUT_FEATURE_PITCH;
            if (INPUT0_FEATURE_NUM % 16 != 0 && s == LR_FS - 1) {  // the block tail stays as it is
                lrn_fsv16_slice t;
                t.v[0] = v0;
                t.v[1] = v1;
                __attribute__((opencl_unroll_hint))
                for (int i = 0; i < INPUT0_FEATURE_NUM % 16; ++i) OUTPUT_STORE(os, i, t.s[i]);
            } else {
                LR_ST8(os, 0, v0);
                LR_ST8(os, 1, v1);
            }
            __attribute__((opencl_unroll_hint))
            for (int i = 0; i < LRN_PRE; ++i) e[i] = cur.s[16 - LRN_PRE + i];
            cur = nxt;
        }
    }
}

#undef LR_FS
#undef LR_LD8
#undef LR_ST8
#undef LR_E
#undef LR_V8
#undef LR_SQUARES
#undef LR_SCALE
