// Reference mean-variance normalization: gws = (OUTER_SIZE,), one work-item per group of REDUCE_SIZE elements.
// OUTER_COORDS fixes the group's coordinates, REDUCE_COORDS walks its elements (both assign c0..c5).
// MVN_RESULT 0: normalized tensor; 1: the mean; 2: 1 / sqrt(var + EPSILON) (both at STATS_INDEX).
KERNEL(mvn_ref)(const __global INPUT0_TYPE* input0,
#if HAS_SCALE
                const __global INPUT1_TYPE* input1,
#endif
#if HAS_BIAS && HAS_SCALE
                const __global INPUT2_TYPE* input2,
#elif HAS_BIAS
                const __global INPUT1_TYPE* input1,
#endif
                __global OUTPUT_TYPE* output)
{
    const int g = get_global_id(0);
    int c0 = 0, c1 = 0, c2 = 0, c3 = 0, c4 = 0, c5 = 0;
    OUTER_COORDS(g)
    float sum = 0.0f;
    for (int r = 0; r < REDUCE_SIZE; ++r) {
        REDUCE_COORDS(r)
        sum += (float)input0[INPUT0_IDX6(c0, c1, c2, c3, c4, c5)];
    }
    const float mean = sum / (float)REDUCE_SIZE;
#if MVN_RESULT == 1
    output[STATS_INDEX] = mean;
#else
    float sq = 0.0f;
    for (int r = 0; r < REDUCE_SIZE; ++r) {
        REDUCE_COORDS(r)
        const float d = (float)input0[INPUT0_IDX6(c0, c1, c2, c3, c4, c5)] - mean;
        sq += d * d;
    }
    const float inv_std = 1.0f / sqrt(sq / (float)REDUCE_SIZE + EPSILON);
#if MVN_RESULT == 2
    output[STATS_INDEX] = inv_std;
#else
    for (int r = 0; r < REDUCE_SIZE; ++r) {
        REDUCE_COORDS(r)
        float v = (float)input0[INPUT0_IDX6(c0, c1, c2, c3, c4, c5)] - mean;
#if NORMALIZE_VARIANCE
        v *= inv_std;
#endif
#if HAS_SCALE
        v *= (float)SCALE_INDEX_BUF[SCALE_INDEX];
#endif
#if HAS_BIAS
        v += (float)BIAS_INDEX_BUF[BIAS_INDEX];
#endif
        output[OUTPUT_IDX6(c0, c1, c2, c3, c4, c5)] = v;
    }
#endif
#endif
}
