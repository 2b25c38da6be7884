// Reference reduce: gws = (x, y, f * b) of the output's dims4. The output's linear row-major index is split over
// the six kept sizes into a base input coordinate; the REDUCE_COUNT reduced elements are visited by splitting
// the loop counter over the six reduced sizes. Input rank 5-6 is read with x = row-major index of dims 3..5.
KERNEL(reduce_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const uint ox = get_global_id(0);
    const uint oy = get_global_id(1);
    const uint of = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const uint ob = get_global_id(2) / OUTPUT_FEATURE_NUM;
    const uint keep[6] = {REDUCE_KEEP_SIZES};
    const uint red[6] = {REDUCE_RED_SIZES};
    uint rem = ((ob * OUTPUT_FEATURE_NUM + of) * OUTPUT_SIZE_Y + oy) * OUTPUT_SIZE_X + ox;
    uint base[6];
    for (int d = 5; d >= 0; --d) {
        base[d] = rem % keep[d];
        rem /= keep[d];
    }
#if defined(REDUCE_MODE_MAX)
    float acc = -INFINITY;
#elif defined(REDUCE_MODE_MIN)
    float acc = INFINITY;
#elif defined(REDUCE_MODE_PROD)
    float acc = 1.0f;
#else
    float acc = 0.0f;
#endif
    for (uint r = 0; r < REDUCE_COUNT; ++r) {
        uint rr = r;
        uint c[6];
        for (int d = 5; d >= 0; --d) {
            c[d] = base[d] + rr % red[d];
            rr /= red[d];
        }
        const float v = input[INPUT0_GET_INDEX(c[0], c[1], c[2], (c[3] * IN_D4 + c[4]) * IN_D5 + c[5])];
#if defined(REDUCE_MODE_MAX)
        acc = (isnan(v) || v > acc) ? v : acc;
#elif defined(REDUCE_MODE_MIN)
        acc = (isnan(v) || v < acc) ? v : acc;
#elif defined(REDUCE_MODE_PROD)
        acc *= v;
#else
        acc += v;
#endif
    }
#if defined(REDUCE_MODE_MEAN)
    acc /= (float)REDUCE_COUNT;
#endif
    output[OUTPUT_GET_INDEX(ob, of, oy, ox)] = acc;
}
