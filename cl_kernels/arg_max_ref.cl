// Reference arg max/min: gws = (x, y, f * b) of the output's dims4. The output's linear row-major index is split
// over the input sizes with the axis set to 1 into a 6-d coordinate; the work-item walks the axis keeping the
// best value and its index. Ties: first index (last with ARG_SELECT_LAST); NaN beats every number (numpy).
#if ARG_MODE_MIN
#define ARG_BEATS(v, best) ((v) < (best))
#else
#define ARG_BEATS(v, best) ((v) > (best))
#endif
#define ARG_READ(c) input[INPUT0_GET_INDEX(c[0], c[1], c[2], (c[3] * IN_D4 + c[4]) * IN_D5 + c[5])]

KERNEL(arg_max_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const uint ox = get_global_id(0);
    const uint oy = get_global_id(1);
    const uint of = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const uint ob = get_global_id(2) / OUTPUT_FEATURE_NUM;
    const uint keep[6] = {ARG_KEEP_SIZES};
    uint rem = ((ob * OUTPUT_FEATURE_NUM + of) * OUTPUT_SIZE_Y + oy) * OUTPUT_SIZE_X + ox;
    uint c[6];
    for (int d = 5; d >= 0; --d) {
        c[d] = rem % keep[d];
        rem /= keep[d];
    }
    float best = ARG_READ(c);
    int best_i = 0;
    for (uint i = 1; i < ARG_AXIS_SIZE; ++i) {
        c[ARG_AXIS] = i;
        const float v = ARG_READ(c);
#if ARG_SELECT_LAST
        const bool better = isnan(v) || (!isnan(best) && (ARG_BEATS(v, best) || v == best));
#else
        const bool better = !isnan(best) && (isnan(v) || ARG_BEATS(v, best));
#endif
        if (better) {
            best = v;
            best_i = (int)i;
        }
    }
    output[OUTPUT_GET_INDEX(ob, of, oy, ox)] = (OUTPUT_TYPE)best_i;
}
#undef ARG_BEATS
#undef ARG_READ
