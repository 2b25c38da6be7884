// Reference transposed convolution as a gather: gws = (OX, OY, OF * B). Output (oy, ox) receives input (iy, ix)
// through tap (ky, kx) when iy * STRIDE_Y + ky * DILATION_Y == oy + PAD_Y (and the same along x). Each tensor f32
// or f16 (half storage: NAME_LOAD / NAME_STORE; the accumulator is float).
KERNEL(deconvolution_ref)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* weights,
#if BIAS_TERM
                          const __global INPUT2_TYPE* bias,
#endif
                          __global OUTPUT_TYPE* output)
{
    const int ox = get_global_id(0);
    const int oy = get_global_id(1);
    const int of = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const int b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    const int g = of / FILTER_OFM_PER_GROUP;
    const int ofg = of % FILTER_OFM_PER_GROUP;
#if BIAS_TERM
    float acc = INPUT2_LOAD(bias, BIAS_INDEX(of));
#else
    float acc = 0.0f;
#endif
    for (int ky = 0; ky < FILTER_SIZE_Y; ++ky) {
        const int ty = oy + PAD_Y - ky * DILATION_Y;
        if (ty < 0 || ty % STRIDE_Y != 0) continue;
        const int iy = ty / STRIDE_Y;
        if (iy >= INPUT0_SIZE_Y) continue;
        for (int kx = 0; kx < FILTER_SIZE_X; ++kx) {
            const int tx = ox + PAD_X - kx * DILATION_X;
            if (tx < 0 || tx % STRIDE_X != 0) continue;
            const int ix = tx / STRIDE_X;
            if (ix >= INPUT0_SIZE_X) continue;
            for (int ic = 0; ic < FILTER_IFM_PER_GROUP; ++ic) {
                const int c = g * FILTER_IFM_PER_GROUP + ic;
                acc += INPUT0_LOAD(input, INPUT0_GET_INDEX(b, c, iy, ix))
                       * INPUT1_LOAD(weights, INPUT1_GET_INDEX(c, ofg, ky, kx));
            }
        }
    }
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, of, oy, ox), acc);
}
