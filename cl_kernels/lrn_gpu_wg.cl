// GPU LRN across channels: gws = (X, Y rounded up to lws, F * B), lws = (lx, ly, 1). Window [f - LRN_PRE,
// f + LRN_POST] clipped to [0, C); y = x / (LRN_K + LRN_ALPHA_DIV_SIZE * sum of squares) ^ LRN_BETA.
KERNEL(lrn_gpu_wg)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= OUTPUT_SIZE_X || y >= OUTPUT_SIZE_Y)
        return;
    const int f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const int b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    const int c0 = f - LRN_PRE > 0 ? f - LRN_PRE : 0;
    const int c1 = f + LRN_POST < INPUT0_FEATURE_NUM - 1 ? f + LRN_POST : INPUT0_FEATURE_NUM - 1;
    float sum = 0.0f;
    for (int c = c0; c <= c1; ++c) {
        const float v = INPUT0_LOAD(input, INPUT0_GET_INDEX(b, c, y, x));
        sum += v * v;
    }
    const float v = INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, y, x));
    // the base is positive (k > 0): base^-beta = exp(-beta * log(base))
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, y, x), v * exp(-LRN_BETA * log(LRN_K + LRN_ALPHA_DIV_SIZE * sum)));
}
