// Reference batch normalization (inference): gws = (x, y, f * b).
// y = (x - mean[f]) / sqrt(var[f] + EPSILON) * scale[f] + shift[f]; any format through the GET_INDEX macros.
// A per-channel statistic holds C values in any shape: channel c is its c-th logical element (row-major over
// the tensor's own b, f, y, x sizes), read through that tensor's GET_INDEX so any format/padding works.
#define STAT_INDEX(T, c) CAT(T, _GET_INDEX)( \
    (c) / (CAT(T, _FEATURE_NUM) * CAT(T, _SIZE_Y) * CAT(T, _SIZE_X)), \
    (c) / (CAT(T, _SIZE_Y) * CAT(T, _SIZE_X)) % CAT(T, _FEATURE_NUM), \
    (c) / CAT(T, _SIZE_X) % CAT(T, _SIZE_Y), \
    (c) % CAT(T, _SIZE_X))

KERNEL(batch_norm_ref)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* mean,
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
#ifdef WG_OUT_OF_RANGE  // the GPU-tier twin (common/gpu_twin.py): gws rounded up to lws
    if (WG_OUT_OF_RANGE(get_global_id(0), get_global_id(1), get_global_id(2)))
        return;
#endif
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const int b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    const float m = INPUT1_LOAD(mean, STAT_INDEX(INPUT1, f));
    const float v = INPUT2_LOAD(variance, STAT_INDEX(INPUT2, f));
    float r = ((float)INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, y, x)) - m) / sqrt(v + EPSILON);
#if HAS_SCALE
    r *= (float)SCALE_LOAD(scale, SCALE_INDEX(f));
#endif
#if HAS_SHIFT
    r += (float)SHIFT_LOAD(shift, SHIFT_INDEX(f));
#endif
    FUSED_OPS(r, b, f, y, x);
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, y, x), r);
}
#undef STAT_INDEX
