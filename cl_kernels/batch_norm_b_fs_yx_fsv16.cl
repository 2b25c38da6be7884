// Batch normalization (inference) on b_fs_yx_fsv16 f32 for CPU OpenCL (PoCL): gws = (ceil(X / BN_BLOCK), Y,
// slices * B), lws = (1, 1, 1). One work-item = BN_BLOCK pixels x 16 channels of one row: it turns the 16 channels'
// statistics into a multiplier and an offset once (two float8 each: a = scale / sqrt(var + eps), c = shift - mean * a),
// then y = x * a + c per pixel with aligned float8 accesses, FUSED_OPS8 (the fused ops' float8 form) and no builtin
// call in the pixel loop. Statistics: C f32 values each, contiguous (any shape, unpadded). The last work-item of a
// row is shifted left (x0 = X - BN_BLOCK) and recomputes a few pixels; the last slice of a channel count that is not
// a multiple of 16 writes only the real channels.
#define BN_SLICES ((OUTPUT_FEATURE_NUM + 15) / 16)
#define BN_LD8(p, i) (((const __global float8*)(p))[i])

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(batch_norm_b_fs_yx_fsv16)(const __global float* input, const __global float* mean,
                                 const __global float* variance,
#if HAS_SCALE
                                 const __global float* scale,
#endif
#if HAS_SHIFT
                                 const __global float* shift,
#endif
                                 __global float* output FUSED_OPS_ARGS)
{
    const int x_start = (int)get_global_id(0) * BN_BLOCK;
    const int y = get_global_id(1);
    const int fs = get_global_id(2) % BN_SLICES;
    const int b = get_global_id(2) / BN_SLICES;
    const int x0 = x_start < OUTPUT_SIZE_X - BN_BLOCK ? x_start : OUTPUT_SIZE_X - BN_BLOCK;
    union { float8 v[2]; float s[16]; } mul, add;
    __attribute__((opencl_unroll_hint))
    for (int i = 0; i < 16; ++i) {
        const int c = fs * 16 + i < OUTPUT_FEATURE_NUM ? fs * 16 + i : OUTPUT_FEATURE_NUM - 1;
        float a = 1.0f / sqrt(variance[c] + EPSILON);
#if HAS_SCALE
        a *= scale[c];
#endif
        float o = -mean[c] * a;
#if HAS_SHIFT
        o += shift[c];
#endif
        mul.s[i] = a;
        add.s[i] = o;
    }
    const __global float* in = input + INPUT0_OFFSET + b * INPUT0_BATCH_PITCH + fs * INPUT0_FEATURE_PITCH
                               + y * INPUT0_Y_PITCH + x0 * 16;
    __global float* out = output + OUTPUT_OFFSET + b * OUTPUT_BATCH_PITCH + fs * OUTPUT_FEATURE_PITCH
                          + y * OUTPUT_Y_PITCH + x0 * 16;
    __attribute__((opencl_unroll_hint))
    for (int p = 0; p < BN_BLOCK; ++p) {
        float8 lo = BN_LD8(in, 2 * p) * mul.v[0] + add.v[0];
        float8 hi = BN_LD8(in, 2 * p + 1) * mul.v[1] + add.v[1];
        FUSED_OPS8(lo, b, fs * 16, y, x0 + p);
        FUSED_OPS8(hi, b, fs * 16 + 8, y, x0 + p);
        FSV16_STORE_PIXEL(out + p * 16, lo, hi, fs == BN_SLICES - 1);
    }
}
#undef BN_SLICES
#undef BN_LD8
