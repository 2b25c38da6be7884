// GPU softmax / log-softmax: gws = (OUTER_SIZE * SOFTMAX_LWS,), lws = (SOFTMAX_LWS,), one work-group per row.
// The row's fixed coordinates come from OUTER_COORDS(group), the visited ones from REDUCE_COORDS(r) for
// r = lid, lid + SOFTMAX_LWS, ...; the row max and the sum of exp(x - max) are __local tree reductions.
KERNEL(softmax_gpu_wg)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    __local float red[SOFTMAX_LWS];
    const int g = get_group_id(0);
    const int lid = get_local_id(0);
    int c0 = 0, c1 = 0, c2 = 0, c3 = 0, c4 = 0, c5 = 0;
    OUTER_COORDS(g)
    float m = -INFINITY;
    for (int r = lid; r < REDUCE_SIZE; r += SOFTMAX_LWS) {
        REDUCE_COORDS(r)
        m = fmax(m, (float)input[INPUT0_IDX6(c0, c1, c2, c3, c4, c5)]);
    }
    red[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = SOFTMAX_LWS / 2; s > 0; s >>= 1) {
        if (lid < s)
            red[lid] = fmax(red[lid], red[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    m = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);  // every work-item has read the max before red is reused
    float sum = 0.0f;
    for (int r = lid; r < REDUCE_SIZE; r += SOFTMAX_LWS) {
        REDUCE_COORDS(r)
        sum += exp((float)input[INPUT0_IDX6(c0, c1, c2, c3, c4, c5)] - m);
    }
    red[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = SOFTMAX_LWS / 2; s > 0; s >>= 1) {
        if (lid < s)
            red[lid] += red[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    sum = red[0];
#if SOFTMAX_LOG
    const float shift = m + log(sum);
    for (int r = lid; r < REDUCE_SIZE; r += SOFTMAX_LWS) {
        REDUCE_COORDS(r)
        output[OUTPUT_IDX6(c0, c1, c2, c3, c4, c5)] = (float)input[INPUT0_IDX6(c0, c1, c2, c3, c4, c5)] - shift;
    }
#else
    const float inv = 1.0f / sum;
    for (int r = lid; r < REDUCE_SIZE; r += SOFTMAX_LWS) {
        REDUCE_COORDS(r)
        output[OUTPUT_IDX6(c0, c1, c2, c3, c4, c5)] = exp((float)input[INPUT0_IDX6(c0, c1, c2, c3, c4, c5)] - m) * inv;
    }
#endif
}
