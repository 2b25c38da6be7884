// Reference softmax along dims4 axis SOFTMAX_AXIS: gws = the three other dims4 sizes in b, f, y, x order.
// Each work-item owns one row: pass 1 max, pass 2 sum of exp(x - max), pass 3 exp(x - max) / sum.
#if SOFTMAX_AXIS == 0
#define ROW_IN(a) INPUT0_GET_INDEX(a, g0, g1, g2)
#define ROW_OUT(a) OUTPUT_GET_INDEX(a, g0, g1, g2)
#elif SOFTMAX_AXIS == 1
#define ROW_IN(a) INPUT0_GET_INDEX(g0, a, g1, g2)
#define ROW_OUT(a) OUTPUT_GET_INDEX(g0, a, g1, g2)
#elif SOFTMAX_AXIS == 2
#define ROW_IN(a) INPUT0_GET_INDEX(g0, g1, a, g2)
#define ROW_OUT(a) OUTPUT_GET_INDEX(g0, g1, a, g2)
#else
#define ROW_IN(a) INPUT0_GET_INDEX(g0, g1, g2, a)
#define ROW_OUT(a) OUTPUT_GET_INDEX(g0, g1, g2, a)
#endif

KERNEL(softmax_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const int g0 = get_global_id(0);
    const int g1 = get_global_id(1);
    const int g2 = get_global_id(2);
    float m = -INFINITY;
    for (int a = 0; a < SOFTMAX_AXIS_SIZE; ++a)
        m = fmax(m, (float)input[ROW_IN(a)]);
    float sum = 0.0f;
    for (int a = 0; a < SOFTMAX_AXIS_SIZE; ++a)
        sum += exp((float)input[ROW_IN(a)] - m);
    const float inv = 1.0f / sum;
    for (int a = 0; a < SOFTMAX_AXIS_SIZE; ++a)
        output[ROW_OUT(a)] = exp((float)input[ROW_IN(a)] - m) * inv;
}
#undef ROW_IN
#undef ROW_OUT
