// Reference scatter: gws = (x, y, f * b) of the output. The work-item owns output element o (flat row-major offset
// `me`), starts from the data value and applies, in order, every update whose flat index equals `me`.
KERNEL(scatter_ref)(const __global INPUT0_TYPE* data, const __global INPUT1_TYPE* indices,
                    const __global INPUT2_TYPE* updates, __global OUTPUT_TYPE* output)
{
    ND_OUTPUT_COORDS
    const int me = ((((o0 * OUTPUT_DIM1 + o1) * OUTPUT_DIM2 + o2) * OUTPUT_DIM3 + o3) * OUTPUT_DIM4 + o4)
                   * OUTPUT_DIM5 + o5;
    INPUT0_VAL_TYPE acc = INPUT0_LOAD(data, INPUT0_IDX6(o0, o1, o2, o3, o4, o5));
    for (int u = 0; u < SCATTER_COUNT; ++u) {
        int r = u;
        const int u5 = r % INPUT1_DIM5; r /= INPUT1_DIM5;
        const int u4 = r % INPUT1_DIM4; r /= INPUT1_DIM4;
        const int u3 = r % INPUT1_DIM3; r /= INPUT1_DIM3;
        const int u2 = r % INPUT1_DIM2; r /= INPUT1_DIM2;
        const int u1 = r % INPUT1_DIM1; r /= INPUT1_DIM1;
        if (indices[INPUT1_IDX6(r, u1, u2, u3, u4, u5)] != me)
            continue;
        int q = u;   // the updates may have another shape of the same count: their own row-major coordinate
        const int v5 = q % INPUT2_DIM5; q /= INPUT2_DIM5;
        const int v4 = q % INPUT2_DIM4; q /= INPUT2_DIM4;
        const int v3 = q % INPUT2_DIM3; q /= INPUT2_DIM3;
        const int v2 = q % INPUT2_DIM2; q /= INPUT2_DIM2;
        const int v1 = q % INPUT2_DIM1; q /= INPUT2_DIM1;
        const INPUT2_VAL_TYPE upd = INPUT2_LOAD(updates, INPUT2_IDX6(q, v1, v2, v3, v4, v5));
        acc = SCATTER_COMBINE(acc, upd);
    }
    OUTPUT_STORE(output, OUTPUT_IDX6(o0, o1, o2, o3, o4, o5), (OUTPUT_VAL_TYPE)acc);
}
