// GPU-tier batch normalization (inference): gws = (X, Y, F * B) of the output rounded up to lws; work-items past
// the output return. y = (x - mean[f]) / sqrt(var[f] + EPSILON) * scale[f] + shift[f], then the fused ops.
// Channel c of a statistic is its c-th logical element, read through that tensor's GET_INDEX.
#define STAT_INDEX(T, c) CAT(T, _GET_INDEX)( \
    (c) / (CAT(T, _FEATURE_NUM) * CAT(T, _SIZE_Y) * CAT(T, _SIZE_X)), \
    (c) / (CAT(T, _SIZE_Y) * CAT(T, _SIZE_X)) % CAT(T, _FEATURE_NUM), \
    (c) / CAT(T, _SIZE_X) % CAT(T, _SIZE_Y), \
    (c) % CAT(T, _SIZE_X))

KERNEL(batch_norm_gpu_wg)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* mean,
                          const __global INPUT2_TYPE* variance,
#if HAS_SCALE
                          const __global INPUT3_TYPE* scale,
#endif
#if HAS_SHIFT
#if HAS_SCALE
                          const __global INPUT4_TYPE* shift,
#else
                          const __global INPUT3_TYPE* shift,
#endif
#endif
                          __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    WG_BFYX  // x, y, z from the global ids; past the tensor: return; f, b from z
    const float m = mean[STAT_INDEX(INPUT1, f)];
    const float v = variance[STAT_INDEX(INPUT2, f)];
    float r = ((float)input[INPUT0_GET_INDEX(b, f, y, x)] - m) / sqrt(v + EPSILON);
#if HAS_SCALE
    r *= (float)scale[SCALE_INDEX(f)];
#endif
#if HAS_SHIFT
    r += (float)shift[SHIFT_INDEX(f)];
#endif
    FUSED_OPS(r, b, f, y, x);
    output[OUTPUT_GET_INDEX(b, f, y, x)] = r;
}
#undef STAT_INDEX
