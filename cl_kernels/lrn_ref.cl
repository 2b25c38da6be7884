// Reference LRN across channels: gws = (x, y, f * b). Window [f - LRN_PRE, f + LRN_POST] clipped to [0, C);
// y = x / (LRN_K + LRN_ALPHA_DIV_SIZE * sum of squares) ^ LRN_BETA. Any format through the GET_INDEX macros.
KERNEL(lrn_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const int b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    const int f0 = f - LRN_PRE > 0 ? f - LRN_PRE : 0;  // ternaries: int max/min are calls on the pip PoCL
    const int f1 = f + LRN_POST < INPUT0_FEATURE_NUM - 1 ? f + LRN_POST : INPUT0_FEATURE_NUM - 1;
    float sum = 0.0f;
    for (int c = f0; c <= f1; ++c) {
        const float v = INPUT0_LOAD(input, INPUT0_GET_INDEX(b, c, y, x));
        sum += v * v;
    }
    const float v = INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, y, x));
    // base > 0 (k > 0): base^-beta = exp(-beta * log(base)), cheaper than pow() on PoCL
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, y, x), v * exp(-LRN_BETA * log(LRN_K + LRN_ALPHA_DIV_SIZE * sum)));
}
