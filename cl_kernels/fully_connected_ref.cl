// Reference fully connected: gws = (M, N). y[n, m] = sum_k x[n, k] * W[m, k] (+ bias[m]), the input flattened in
// logical order k = (f * SIZE_Y + y) * SIZE_X + x whatever its format, read through INPUT0_GET_INDEX. Every tensor
// is read and written through its LOAD / STORE macro (f32 or f16 storage, each its own), accumulated in float.
KERNEL(fully_connected_ref)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* weights,
#if BIAS_TERM
                            const __global INPUT2_TYPE* bias,
#endif
                            __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const int m = get_global_id(0);
    const int n = get_global_id(1);
    float acc0 = 0.0f;
    float acc1 = 0.0f;
    int k = 0;
    for (int f = 0; f < INPUT0_FEATURE_NUM; ++f) {
        for (int y = 0; y < INPUT0_SIZE_Y; ++y) {
            int x = 0;
            for (; x + 1 < INPUT0_SIZE_X; x += 2, k += 2) {
                acc0 += INPUT0_LOAD(input, INPUT0_GET_INDEX(n, f, y, x)) *
                        INPUT1_LOAD(weights, INPUT1_GET_INDEX(m, k, 0, 0));
                acc1 += INPUT0_LOAD(input, INPUT0_GET_INDEX(n, f, y, x + 1)) *
                        INPUT1_LOAD(weights, INPUT1_GET_INDEX(m, k + 1, 0, 0));
            }
            for (; x < INPUT0_SIZE_X; ++x, ++k) {
                acc0 += INPUT0_LOAD(input, INPUT0_GET_INDEX(n, f, y, x)) *
                        INPUT1_LOAD(weights, INPUT1_GET_INDEX(m, k, 0, 0));
            }
        }
    }
    float acc = acc0 + acc1;
#if BIAS_TERM
    acc += INPUT2_LOAD(bias, BIAS_INDEX(m));
#endif
    FUSED_OPS(acc, n, m, 0, 0);
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(n, m, 0, 0), acc);
}
