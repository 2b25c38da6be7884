// Reference pad: gws = (x, y, f * b) of the output. Input coordinate i = o - PAD_BEGIN_d per dimension;
// out of [0, n): PAD_MODE 0 constant PAD_VALUE, 1 reflect, 2 edge, 3 wrap (as numpy.pad).
KERNEL(pad_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
#ifdef WG_OUT_OF_RANGE  // the GPU-tier twin (common/gpu_twin.py): gws rounded up to lws
    if (WG_OUT_OF_RANGE(get_global_id(0), get_global_id(1), get_global_id(2)))
        return;
#endif
    ND_OUTPUT_COORDS
    const int o[6] = {o0, o1, o2, o3, o4, o5};
    const int size[6] = {INPUT0_DIM0, INPUT0_DIM1, INPUT0_DIM2, INPUT0_DIM3, INPUT0_DIM4, INPUT0_DIM5};
    const int begin[6] = {PAD_BEGIN_0, PAD_BEGIN_1, PAD_BEGIN_2, PAD_BEGIN_3, PAD_BEGIN_4, PAD_BEGIN_5};
    int in[6];
    bool outside = false;
    for (int d = 0; d < 6; ++d) {
        const int n = size[d];
        int i = o[d] - begin[d];
        if (i < 0 || i >= n) {
            outside = true;
#if PAD_MODE == 1
            const int period = 2 * (n - 1);
            if (period == 0) {
                i = 0;
            } else {
                i %= period;
                if (i < 0)
                    i += period;
                if (i >= n)
                    i = period - i;
            }
#elif PAD_MODE == 2
            i = i < 0 ? 0 : n - 1;
#elif PAD_MODE == 3
            i %= n;
            if (i < 0)
                i += n;
#endif
        }
        in[d] = i;
    }
    const uint out_idx = OUTPUT_IDX6(o0, o1, o2, o3, o4, o5);
#if PAD_MODE == 0
    if (outside) {
        OUTPUT_STORE(output, out_idx, PAD_VALUE);
        return;
    }
#endif
    OUTPUT_STORE(output, out_idx,
                 (OUTPUT_VAL_TYPE)INPUT0_LOAD(input, INPUT0_IDX6(in[0], in[1], in[2], in[3], in[4], in[5])));
}
