// GPU mean-variance normalization: gws = (OUTER_SIZE * MVN_LWS,), lws = (MVN_LWS,), one work-group per group of
// REDUCE_SIZE elements; OUTER_COORDS(group) fixes its coordinates, REDUCE_COORDS(r) walks r = lid, lid + MVN_LWS,
// ...; the sums are __local tree reductions. MVN_RESULT 0: normalized tensor; 1: the mean; 2: 1 / sqrt(var + EPS).
#ifndef MVN_GPU_WG_HELPERS_CL
#define MVN_GPU_WG_HELPERS_CL
// Sum of v over the work-group (lws a power of two) through red[lws].
static inline float mvn_wg_sum(__local float* red, float v, int lid, int lws)
{
    red[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = lws / 2; s > 0; s >>= 1) {
        if (lid < s)
            red[lid] += red[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float total = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);  // every work-item has read the total before red is reused
    return total;
}
#endif

KERNEL(mvn_gpu_wg)(const __global INPUT0_TYPE* input0,
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
    __local float red[MVN_LWS];
    const int g = get_group_id(0);
    const int lid = get_local_id(0);
    int c0 = 0, c1 = 0, c2 = 0, c3 = 0, c4 = 0, c5 = 0;
    OUTER_COORDS(g)
    float sum = 0.0f;
    for (int r = lid; r < REDUCE_SIZE; r += MVN_LWS) {
        REDUCE_COORDS(r)
        sum += (float)input0[INPUT0_IDX6(c0, c1, c2, c3, c4, c5)];
    }
    const float mean = mvn_wg_sum(red, sum, lid, MVN_LWS) / (float)REDUCE_SIZE;
#if MVN_RESULT == 1
    if (lid == 0) {
        output[STATS_INDEX] = mean;
    }
#else
    float sq = 0.0f;
    for (int r = lid; r < REDUCE_SIZE; r += MVN_LWS) {
        REDUCE_COORDS(r)
        const float d = (float)input0[INPUT0_IDX6(c0, c1, c2, c3, c4, c5)] - mean;
        sq += d * d;
    }
    const float inv_std = 1.0f / sqrt(mvn_wg_sum(red, sq, lid, MVN_LWS) / (float)REDUCE_SIZE + EPSILON);
#if MVN_RESULT == 2
    if (lid == 0) {
        output[STATS_INDEX] = inv_std;
    }
#else
    for (int r = lid; r < REDUCE_SIZE; r += MVN_LWS) {
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
