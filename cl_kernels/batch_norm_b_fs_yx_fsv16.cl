// Batch normalization (inference) on b_fs_yx_fsv16 f32 or f16 (storage) for CPU OpenCL (PoCL): gws = (ceil(X / BN_BLOCK), Y,
// slices * B), lws = (1, 1, 1). One work-item = BN_BLOCK pixels x 16 channels of one row: it turns the 16 channels'
// statistics into a multiplier and an offset once (two float8 each: a = scale / sqrt(var + eps), c = shift - mean * a),
// then y = x * a + c per pixel with aligned float8 accesses, FUSED_OPS8 (the fused ops' float8 form) and no builtin
// call in the pixel loop. Statistics: C f32 or f16 values each, contiguous (any shape, unpadded). Every tensor is
// read and written through its own access macros (NAME_LOAD / NAME_LOAD8 / NAME_STORE8: plain indexing and float8
// pointers for f32, vload_half / vload_half8 / vstore_half8_rte for f16); the arithmetic is float. The last work-item of a
// row is shifted left (x0 = X - BN_BLOCK) and recomputes a few pixels; the last slice of a channel count that is not
// a multiple of 16 writes only the real channels. RUNTIME_SHAPE_ARGS: without fused eltwise operands the sizes, pitches
// and offsets of INPUT0 and OUTPUT are int parameters (one binary for every shape: PoCL keeps 128 loaded kernels).
#define BN_SLICES ((OUTPUT_FEATURE_NUM + 15) / 16)
#define BN_LD8(p, i) INPUT0_LOAD8(p, (i) * 8)

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(batch_norm_b_fs_yx_fsv16)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* mean,
                                 const __global INPUT2_TYPE* variance,
#if HAS_SCALE
                                 const __global SCALE_TYPE* scale,
#endif
#if HAS_SHIFT
                                 const __global SHIFT_TYPE* shift,
#endif
                                 __global OUTPUT_TYPE* output FUSED_OPS_ARGS RUNTIME_SHAPE_ARGS)
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
        float a = 1.0f / sqrt(INPUT2_LOAD(variance, c) + EPSILON);
#if HAS_SCALE
        a *= SCALE_LOAD(scale, c);
#endif
        float o = -INPUT1_LOAD(mean, c) * a;
#if HAS_SHIFT
        o += SHIFT_LOAD(shift, c);
#endif
        mul.s[i] = a;
        add.s[i] = o;
    }
    const __global INPUT0_TYPE* in = input + INPUT0_OFFSET + b * INPUT0_BATCH_PITCH + fs * INPUT0_FEATURE_PITCH
                                     + y * INPUT0_Y_PITCH + x0 * 16;
    __global OUTPUT_TYPE* out = output + OUTPUT_OFFSET + b * OUTPUT_BATCH_PITCH + fs * OUTPUT_FEATURE_PITCH
                                + y * OUTPUT_Y_PITCH + x0 * 16;
    __attribute__((opencl_unroll_hint))
    for (int p = 0; p < BN_BLOCK; ++p) {
        float8 lo = BN_LD8(in, 2 * p) * mul.v[0] + add.v[0];
        float8 hi = BN_LD8(in, 2 * p + 1) * mul.v[1] + add.v[1];
        FUSED_OPS8(lo, b, fs * 16, y, x0 + p);
        FUSED_OPS8(hi, b, fs * 16 + 8, y, x0 + p);
        FSV16_STORE_PIXEL_AS(OUTPUT, out + p * 16, lo, hi, fs == BN_SLICES - 1);
    }
}
#undef BN_SLICES
#undef BN_LD8
