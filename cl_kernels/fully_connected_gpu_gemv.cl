// GPU-tier GEMV fully connected for y[n, m] = sum_k x[n, k] * W[m, k] + bias[m]: gws (ceil(FC_M / ROWS) * LWS, FC_N),
// lws (LWS, 1). A work-group owns ROWS output rows of one batch item; its LWS work-items stride over K (consecutive
// work-items read consecutive k of x and of each weight row: coalesced), keeping ROWS partial sums, then reduce
// them in a __local tree (ROWS x LWS floats, LWS a power of two); work-item r < ROWS finishes row m0 + r with the
// bias and the fused ops.
KERNEL(fully_connected_gpu_gemv)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* weights,
#if BIAS_TERM
                                 const __global INPUT2_TYPE* bias,
#endif
                                 __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const int lid = get_local_id(0);
    const int m0 = get_group_id(0) * ROWS;
    const int n = get_global_id(1);
    __local float red[ROWS][LWS];
    float acc[ROWS];
    for (int r = 0; r < ROWS; ++r)
        acc[r] = 0.0f;
    const __global INPUT0_TYPE* xrow = input + n * FC_K;
    for (int k = lid; k < FC_K; k += LWS) {
        const float xv = (float)xrow[k];
        for (int r = 0; r < ROWS; ++r) {
            if (m0 + r < FC_M)
                acc[r] += xv * (float)weights[(m0 + r) * FC_K + k];
        }
    }
    for (int r = 0; r < ROWS; ++r)
        red[r][lid] = acc[r];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = LWS / 2; s > 0; s >>= 1) {
        if (lid < s) {
            for (int r = 0; r < ROWS; ++r)
                red[r][lid] += red[r][lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid < ROWS && m0 + lid < FC_M) {
        const int m = m0 + lid;
        float val = red[lid][0];
#if BIAS_TERM
        val += bias[BIAS_INDEX(m)];
#endif
        FUSED_OPS(val, n, m, 0, 0);
        output[OUTPUT_GET_INDEX(n, m, 0, 0)] = val;
    }
}
