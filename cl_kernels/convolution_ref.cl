// Reference convolution: gws = (OX, OY, OF * B). Cross-correlation with stride, dilation, begin pads, groups.
// Out-of-range taps (the zero padding) are skipped by bounds checks. Fused ops (activation, residual sum) are
// applied to the accumulator before the store. Each tensor f32 or f16 (half storage: NAME_LOAD / NAME_STORE; the
// accumulator is float).
KERNEL(convolution_ref)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* weights,
#if BIAS_TERM
                        const __global INPUT2_TYPE* bias,
#endif
                        __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const int ox = get_global_id(0);
    const int oy = get_global_id(1);
    const int of = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const int b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    const int g = of / FILTER_OFM_PER_GROUP;
#if BIAS_TERM
    float acc = INPUT2_LOAD(bias, of);
#else
    float acc = 0.0f;
#endif
    for (int ic = 0; ic < FILTER_IFM_NUM; ++ic) {
        const int f = g * FILTER_IFM_NUM + ic;
        for (int ky = 0; ky < FILTER_SIZE_Y; ++ky) {
            const int iy = oy * STRIDE_Y - PAD_Y + ky * DILATION_Y;
            if (iy < 0 || iy >= INPUT0_SIZE_Y) continue;
            for (int kx = 0; kx < FILTER_SIZE_X; ++kx) {
                const int ix = ox * STRIDE_X - PAD_X + kx * DILATION_X;
                if (ix < 0 || ix >= INPUT0_SIZE_X) continue;
                acc += INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, iy, ix))
                       * INPUT1_LOAD(weights, INPUT1_GET_INDEX(of, ic, ky, kx));
            }
        }
    }
    FUSED_OPS(acc, b, of, oy, ox);
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, of, oy, ox), acc);
}
