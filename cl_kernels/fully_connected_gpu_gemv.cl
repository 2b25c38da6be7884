// GPU-tier GEMV fully connected for y[n, m] = sum_k x[n, k] * W[m, k] + bias[m]: gws (ceil(FC_M / ROWS) * LWS,
// ceil(FC_N / NB)), lws (LWS, 1). A work-group owns ROWS output rows of NB batch items; its LWS work-items stride
// over K (consecutive work-items read consecutive k of x and of each weight row: coalesced; each weight is read
// once for the NB items), keeping NB x ROWS partial sums, then reduce them in a __local tree (NB * ROWS x LWS
// floats, LWS a power of two >= NB * ROWS); work-item i < NB * ROWS finishes item n0 + i / ROWS, row m0 + i % ROWS
// with the bias and the fused ops. Each tensor f32 or f16 storage, through its LOAD / STORE macros; sums in float.
KERNEL(fully_connected_gpu_gemv)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* weights,
#if BIAS_TERM
                                 const __global INPUT2_TYPE* bias,
#endif
                                 __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const int lid = get_local_id(0);
    const int m0 = get_group_id(0) * ROWS;
    const int n0 = get_group_id(1) * NB;
    __local float red[NB * ROWS][LWS];
    float acc[NB][ROWS];
    for (int q = 0; q < NB; ++q)
        for (int r = 0; r < ROWS; ++r)
            acc[q][r] = 0.0f;
    for (int k = lid; k < FC_K; k += LWS) {
        float wv[ROWS];
        for (int r = 0; r < ROWS; ++r)
            wv[r] = m0 + r < FC_M ? INPUT1_LOAD(weights, (m0 + r) * FC_K + k) : 0.0f;
        for (int q = 0; q < NB; ++q) {
            const float xv = n0 + q < FC_N ? INPUT0_LOAD(input, (n0 + q) * FC_K + k) : 0.0f;
            for (int r = 0; r < ROWS; ++r)
                acc[q][r] += xv * wv[r];
        }
    }
    for (int q = 0; q < NB; ++q)
        for (int r = 0; r < ROWS; ++r)
            red[q * ROWS + r][lid] = acc[q][r];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = LWS / 2; s > 0; s >>= 1) {
        if (lid < s) {
            for (int i = 0; i < NB * ROWS; ++i)
                red[i][lid] += red[i][lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid < NB * ROWS) {
        const int n = n0 + lid / ROWS;
        const int m = m0 + lid % ROWS;
        if (n < FC_N && m < FC_M) {
            float val = red[lid][0];
#if BIAS_TERM
            val += INPUT2_LOAD(bias, BIAS_INDEX(m));
#endif
            FUSED_OPS(val, n, m, 0, 0);
            OUTPUT_STORE(output, OUTPUT_GET_INDEX(n, m, 0, 0), val);
        }
    }
}
