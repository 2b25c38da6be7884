// Reference resize: gws = (x, y, f * b) of the output (six N-D coordinates o0..o5 via ND_OUTPUT_COORDS).
// Per axis d: TAPS_d taps, input index IDX_d(o, t) and weight W_d(o, t) (tables in RESIZE_TABLES; an axis
// copied unchanged has one tap (o, 1.0f)). EXTRAP_d(o) flags tf_crop_and_resize coordinates outside the input.
KERNEL(resize_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    RESIZE_TABLES
    ND_OUTPUT_COORDS
    const uint out_idx = OUTPUT_IDX6(o0, o1, o2, o3, o4, o5);
    if (EXTRAP_0(o0) || EXTRAP_1(o1) || EXTRAP_2(o2) || EXTRAP_3(o3) || EXTRAP_4(o4) || EXTRAP_5(o5)) {
        OUTPUT_STORE(output, out_idx, EXTRAPOLATION_VALUE);
        return;
    }
    float acc = 0.0f;
    for (int t0 = 0; t0 < TAPS_0; ++t0) {
        const int i0 = IDX_0(o0, t0);
        const float w0 = W_0(o0, t0);
        for (int t1 = 0; t1 < TAPS_1; ++t1) {
            const int i1 = IDX_1(o1, t1);
            const float w1 = w0 * W_1(o1, t1);
            for (int t2 = 0; t2 < TAPS_2; ++t2) {
                const int i2 = IDX_2(o2, t2);
                const float w2 = w1 * W_2(o2, t2);
                for (int t3 = 0; t3 < TAPS_3; ++t3) {
                    const int i3 = IDX_3(o3, t3);
                    const float w3 = w2 * W_3(o3, t3);
                    for (int t4 = 0; t4 < TAPS_4; ++t4) {
                        const int i4 = IDX_4(o4, t4);
                        const float w4 = w3 * W_4(o4, t4);
                        for (int t5 = 0; t5 < TAPS_5; ++t5) {
                            const int i5 = IDX_5(o5, t5);
                            acc += (w4 * W_5(o5, t5)) * INPUT0_LOAD(input, INPUT0_IDX6(i0, i1, i2, i3, i4, i5));
                        }
                    }
                }
            }
        }
    }
    OUTPUT_STORE(output, out_idx, acc);
}
