// Reference top-k: gws = (x, y, f * b) of the INPUT's dims4. Each work-item takes one input element, counts the
// elements of its row along TOPK_AXIS that come before it (better, or equal at a lower index), and writes its value
// or index to output slot `rank` when rank < k. Order: numpy's stable argsort; a NaN comes after every number.
#if TOPK_LARGEST
#define TOPK_BETTER(v, w) ((v) > (w))
#else
#define TOPK_BETTER(v, w) ((v) < (w))
#endif
// v precedes w: a better number, or any number before a NaN
#define TOPK_BEFORE(v, w) (TOPK_BETTER(v, w) || ((v) == (v) && (w) != (w)))
// v ties w: equal, or both NaN
#define TOPK_TIES(v, w) ((v) == (w) || ((v) != (v) && (w) != (w)))

KERNEL(top_k_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const uint ix = get_global_id(0);
    const uint iy = get_global_id(1);
    const uint fi = get_global_id(2) % INPUT0_FEATURE_NUM;
    const uint bi = get_global_id(2) / INPUT0_FEATURE_NUM;
    const uint sizes[6] = {TOPK_IN_SIZES};
    const uint osizes[6] = {TOPK_OUT_SIZES};
    uint rem = ((bi * INPUT0_FEATURE_NUM + fi) * INPUT0_SIZE_Y + iy) * INPUT0_SIZE_X + ix;
    uint c[6];
    for (int d = 5; d >= 0; --d) {
        c[d] = rem % sizes[d];
        rem /= sizes[d];
    }
    const uint me = c[TOPK_AXIS];
    const INPUT0_TYPE v = input[INPUT0_GET_INDEX(c[0], c[1], c[2], (c[3] * sizes[4] + c[4]) * sizes[5] + c[5])];
    uint rank = 0;
    for (uint i = 0; i < TOPK_AXIS_SIZE; ++i) {
        c[TOPK_AXIS] = i;
        const INPUT0_TYPE w = input[INPUT0_GET_INDEX(c[0], c[1], c[2], (c[3] * sizes[4] + c[4]) * sizes[5] + c[5])];
        rank += (TOPK_BEFORE(w, v) || (i < me && TOPK_TIES(w, v))) ? 1 : 0;
    }
    if (rank >= osizes[TOPK_AXIS])
        return;
    c[TOPK_AXIS] = rank;
    const uint o = OUTPUT_GET_INDEX(c[0], c[1], c[2], (c[3] * osizes[4] + c[4]) * osizes[5] + c[5]);
#if TOPK_INDICES
    output[o] = (OUTPUT_TYPE)me;
#else
    output[o] = (OUTPUT_TYPE)v;
#endif
}
#undef TOPK_BETTER
#undef TOPK_BEFORE
#undef TOPK_TIES
