// GPU-tier sub-group GEMV fully connected: y[n, m] = sum_k x[n, k] * W[m, k] + bias[m]. gws (ceil(FC_M / ROWS) * LWS,
// FC_N), lws (LWS, 1). A work-group owns ROWS output rows of one batch item and splits them over its sub-groups:
// sub-group s takes rows s, s + S, s + 2S ... (S sub-groups). Its lanes stride over K (lane l reads k = l, l + W ...,
// W the sub-group width: coalesced reads of x and of the weight row), and one sub-group sum finishes the row: no
// __local memory and no barrier on a device with sub-groups (SG_NATIVE 1: cl_khr_subgroups or cl_intel_subgroups,
// any width the compiler picks). SG_NATIVE 0 emulates the sub-groups with SG_WIDTH consecutive work-items and a
// __local sum (cldnn_sg_sum_emulated), so the same code runs, and is tested, on devices without them; there ROWS is
// a multiple of LWS / SG_WIDTH so every work-item reaches the same barriers. Each tensor f32 or f16 storage, through
// its LOAD / STORE macros; sums in float.
#if SG_NATIVE
#define SG_LANE get_sub_group_local_id()
#define SG_ID get_sub_group_id()
#define SG_COUNT get_num_sub_groups()
#define SG_W get_sub_group_size()
#define SG_SUM(v) sub_group_reduce_add(v)
#else
#define SG_LANE (get_local_id(0) % SG_WIDTH)
#define SG_ID (get_local_id(0) / SG_WIDTH)
#define SG_COUNT (LWS / SG_WIDTH)
#define SG_W SG_WIDTH
#define SG_SUM(v) cldnn_sg_sum_emulated(v, sg_scratch, SG_WIDTH)
#endif
KERNEL(fully_connected_gpu_gemv_sg)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* weights,
#if BIAS_TERM
                                    const __global INPUT2_TYPE* bias,
#endif
                                    __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
#if !SG_NATIVE
    __local float sg_scratch[LWS];
#endif
    const uint lane = SG_LANE;
    const uint width = SG_W;
    const int n = get_global_id(1);
    const __global INPUT0_TYPE* xrow = input + n * FC_K;
    for (uint r = SG_ID; r < ROWS; r += SG_COUNT) {
        const int m = get_group_id(0) * ROWS + r;
        float acc = 0.0f;
        if (m < FC_M) {
            const __global INPUT1_TYPE* wrow = weights + m * FC_K;
            for (uint k = lane; k < FC_K; k += width)
                acc += INPUT0_LOAD(xrow, k) * INPUT1_LOAD(wrow, k);
        }
        float val = SG_SUM(acc);
        if (lane == 0 && m < FC_M) {
#if BIAS_TERM
            val += INPUT2_LOAD(bias, BIAS_INDEX(m));
#endif
            FUSED_OPS(val, n, m, 0, 0);
            OUTPUT_STORE(output, OUTPUT_GET_INDEX(n, m, 0, 0), val);
        }
    }
}
#undef SG_LANE
#undef SG_ID
#undef SG_COUNT
#undef SG_W
#undef SG_SUM
