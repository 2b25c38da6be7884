// Reference integer convolution: gws = (OX, OY, OF * B). acc = bias + sum (x - x_zp) * (w - w_zp[of]) over the taps
// inside the input (the padding contributes nothing), in int; then the output: the int32 accumulator, its float value
// times scale[of], or requantized: saturate(rint(acc * scale[of]) + OUTPUT_ZP) (round half to even).
KERNEL(quantized_convolution_ref)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* weights,
#if HAS_BIAS
                                  const __global BIAS_T* bias,
#endif
#if HAS_IZP
                                  const __global IZP_T* izp,
#endif
#if HAS_WZP
                                  const __global WZP_T* wzp,
#endif
#if HAS_SCALE
                                  const __global float* scale,
#endif
                                  __global OUTPUT_TYPE* output)
{
    const int ox = get_global_id(0);
    const int oy = get_global_id(1);
    const int of = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const int b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    const int g = of / FILTER_OFM_PER_GROUP;
#if HAS_IZP
    const int x_zp = (int)izp[0];
#else
    const int x_zp = 0;
#endif
#if HAS_WZP
    const int w_zp = (int)wzp[WZP_PER_OC ? of : 0];
#else
    const int w_zp = 0;
#endif
#if HAS_BIAS
    int acc = (int)bias[of];
#else
    int acc = 0;
#endif
    for (int ic = 0; ic < FILTER_IFM_NUM; ++ic) {
        const int f = g * FILTER_IFM_NUM + ic;
        for (int ky = 0; ky < FILTER_SIZE_Y; ++ky) {
            const int iy = oy * STRIDE_Y - PAD_Y + ky * DILATION_Y;
            if (iy < 0 || iy >= INPUT0_SIZE_Y) continue;
            for (int kx = 0; kx < FILTER_SIZE_X; ++kx) {
                const int ix = ox * STRIDE_X - PAD_X + kx * DILATION_X;
                if (ix < 0 || ix >= INPUT0_SIZE_X) continue;
                acc += ((int)input[INPUT0_GET_INDEX(b, f, iy, ix)] - x_zp)
                       * ((int)weights[INPUT1_GET_INDEX(of, ic, ky, kx)] - w_zp);
            }
        }
    }
    const int o = OUTPUT_GET_INDEX(b, of, oy, ox);
    QCONV_STORE(o, acc, of);
}
