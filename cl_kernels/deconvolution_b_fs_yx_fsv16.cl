// Transposed convolution on b_fs_yx_fsv16 for CPU OpenCL (PoCL), groups 1: gws = (SX * ceil(PHASE_W / P),
// OY, OCS * B), lws = (1, 1, 1). A work-item owns 16 output channels x P output pixels of one row that share
// an x phase (ox = first + (j * P + p) * STRIDE_X with first = (phase - PAD_X) mod STRIDE_X): for them the same
// taps kx contribute and the input column steps by one. Per input channel and tap the 16 output channels' weights
// (plain (C, OC, KH, KW): a stride of KH * KW between channels) are gathered once into two float8, then each pixel
// adds input scalar x weights. Output pixels of the phase past OX are skipped; the last slice of a channel count that
// is not a multiple of 16 writes only the real channels. OUTPUT_PLAIN: a bfyx output (a narrow head's few channels).
// Each of input, weights, bias and output f32 or f16 (half storage): read through NAME_ILOAD (common/inline_half.py:
// call-free for half), written through DC_STORE_PIXEL / DC_PLAIN_PIXEL (common/fsv16_store.py: common.cl's float
// forms for f32); weights and accumulators are float in registers.
#define DC_OCS ((OUTPUT_FEATURE_NUM + 15) / 16)
#define DC_TAPS (FILTER_SIZE_Y * FILTER_SIZE_X)
// One input channel c at tap (ky, kx): gather its 16 output channels' weights into two float8 (unrolled), then
// input scalar x weights into each of the P pixels; CHK: skip columns outside the input row.
#define DC_CHANNEL(CHK) { \
        union { float8 v[2]; float s[16]; } w; \
        __attribute__((opencl_unroll_hint)) \
        for (int i = 0; i < 16; ++i) { \
            const int o = ocs * 16 + i < OUTPUT_FEATURE_NUM ? ocs * 16 + i : OUTPUT_FEATURE_NUM - 1; \
            w.s[i] = INPUT1_ILOAD(weights, (c * OUTPUT_FEATURE_NUM + o) * DC_TAPS + ky * FILTER_SIZE_X + kx); \
        } \
        const __global INPUT0_TYPE* row = in_b + (c >> 4) * INPUT0_FEATURE_PITCH + iy * INPUT0_Y_PITCH + (c & 15); \
        __attribute__((opencl_unroll_hint)) \
        for (int p = 0; p < DC_BLOCK; ++p) { \
            const int ix = ix0 + p; \
            if (!(CHK) || (ix >= 0 && ix < INPUT0_SIZE_X)) { \
                const float x = INPUT0_ILOAD(row, ix * 16); \
                a0[p] = x * w.v[0] + a0[p]; \
                a1[p] = x * w.v[1] + a1[p]; \
            } \
        } \
    }

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(deconvolution_b_fs_yx_fsv16)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* weights,
#if BIAS_TERM
                                    const __global INPUT2_TYPE* bias,
#endif
                                    __global OUTPUT_TYPE* output)
{
    const int phase = (int)get_global_id(0) % STRIDE_X;
    const int j = (int)get_global_id(0) / STRIDE_X;
    const int oy = get_global_id(1);
    const int ocs = get_global_id(2) % DC_OCS;
    const int b = get_global_id(2) / DC_OCS;
    const int first = ((phase - PAD_X) % STRIDE_X + STRIDE_X) % STRIDE_X;  // smallest ox of this phase
    const int ox0 = first + j * DC_BLOCK * STRIDE_X;
    float8 a0[DC_BLOCK], a1[DC_BLOCK];
    __attribute__((opencl_unroll_hint))
    for (int p = 0; p < DC_BLOCK; ++p) {
        a0[p] = (float8)(0.0f);
        a1[p] = (float8)(0.0f);
    }
    const __global INPUT0_TYPE* in_b = input + INPUT0_OFFSET + b * INPUT0_BATCH_PITCH;
    for (int ky = 0; ky < FILTER_SIZE_Y; ++ky) {
        const int ty = oy + PAD_Y - ky * DILATION_Y;
        if (ty < 0 || ty % STRIDE_Y != 0 || ty / STRIDE_Y >= INPUT0_SIZE_Y)
            continue;
        const int iy = ty / STRIDE_Y;
        for (int kx = 0; kx < FILTER_SIZE_X; ++kx) {
            const int tx = ox0 + PAD_X - kx * DILATION_X;  // the same remainder mod STRIDE_X for every p
            if (((tx % STRIDE_X) + STRIDE_X) % STRIDE_X != 0)
                continue;
            const int ix0 = tx >= 0 ? tx / STRIDE_X : -((-tx + STRIDE_X - 1) / STRIDE_X);  // floor(tx / STRIDE_X)
            // the block's input columns ix0..ix0+P-1 all inside the row: the channel loop without checks
            if (ix0 >= 0 && ix0 + DC_BLOCK - 1 < INPUT0_SIZE_X) {
                for (int c = 0; c < INPUT0_FEATURE_NUM; ++c) DC_CHANNEL(0)
            } else {
                for (int c = 0; c < INPUT0_FEATURE_NUM; ++c) DC_CHANNEL(1)
            }
        }
    }
#if BIAS_TERM
    union { float8 v[2]; float s[16]; } bb;
    for (int i = 0; i < 16; ++i)
        bb.s[i] = INPUT2_ILOAD(bias, ocs * 16 + i < OUTPUT_FEATURE_NUM ? ocs * 16 + i : OUTPUT_FEATURE_NUM - 1);
#endif
#if OUTPUT_PLAIN  // bfyx output (a narrow head): channel 0 of the slice at out + ox, only the real channels
    __global OUTPUT_TYPE* out = output + OUTPUT_OFFSET + b * OUTPUT_BATCH_PITCH + ocs * 16 * OUTPUT_FEATURE_PITCH
                                + oy * OUTPUT_Y_PITCH;
    const int n_real = OUTPUT_FEATURE_NUM - ocs * 16 < 16 ? OUTPUT_FEATURE_NUM - ocs * 16 : 16;
#else
    __global OUTPUT_TYPE* out = output + OUTPUT_OFFSET + b * OUTPUT_BATCH_PITCH + ocs * OUTPUT_FEATURE_PITCH
                                + oy * OUTPUT_Y_PITCH;
#endif
    for (int p = 0; p < DC_BLOCK; ++p) {
        const int ox = ox0 + p * STRIDE_X;
        if (ox >= OUTPUT_SIZE_X)
            break;
        float8 lo = a0[p];
        float8 hi = a1[p];
#if BIAS_TERM
        lo += bb.v[0];
        hi += bb.v[1];
#endif
#if OUTPUT_PLAIN
        DC_PLAIN_PIXEL(out + ox, lo, hi, n_real, OUTPUT_FEATURE_PITCH);
#else
        DC_STORE_PIXEL(out + ox * 16, lo, hi, ocs == DC_OCS - 1);
#endif
    }
}
#undef DC_OCS
#undef DC_TAPS
#undef DC_CHANNEL
