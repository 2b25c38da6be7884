// Reference softmax / log-softmax: gws = (OUTER_SIZE,), one work-item per row. The row's coordinates come from
// OUTER_COORDS (fixed) and REDUCE_COORDS (the loop); both assign c0..c5 of the six-dimensional logical index.
// Pass 1: max; pass 2: sum of exp(x - max); pass 3: exp(x - max) / sum, or x - max - log(sum) (SOFTMAX_LOG).
KERNEL(softmax_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const int g = get_global_id(0);
    int c0 = 0, c1 = 0, c2 = 0, c3 = 0, c4 = 0, c5 = 0;
    OUTER_COORDS(g)
    float m = -INFINITY;
    for (int r = 0; r < REDUCE_SIZE; ++r) {
        REDUCE_COORDS(r)
        m = fmax(m, (float)input[INPUT0_IDX6(c0, c1, c2, c3, c4, c5)]);
    }
    float sum = 0.0f;
    for (int r = 0; r < REDUCE_SIZE; ++r) {
        REDUCE_COORDS(r)
        sum += exp((float)input[INPUT0_IDX6(c0, c1, c2, c3, c4, c5)] - m);
    }
#if SOFTMAX_LOG
    const float shift = m + log(sum);
    for (int r = 0; r < REDUCE_SIZE; ++r) {
        REDUCE_COORDS(r)
        output[OUTPUT_IDX6(c0, c1, c2, c3, c4, c5)] = (float)input[INPUT0_IDX6(c0, c1, c2, c3, c4, c5)] - shift;
    }
#else
    const float inv = 1.0f / sum;
    for (int r = 0; r < REDUCE_SIZE; ++r) {
        REDUCE_COORDS(r)
        output[OUTPUT_IDX6(c0, c1, c2, c3, c4, c5)] = exp((float)input[INPUT0_IDX6(c0, c1, c2, c3, c4, c5)] - m) * inv;
    }
#endif
}
