// convolution_gpu_depthwise: gws (ceil(ceil(OW/XB)/LX)*LX, ceil(OH/LY)*LY, N*C), lws (LX, LY, 1).
// One work-item: XB consecutive output pixels of one row of one channel; the channel's KH x KW weights are loaded
// once into registers. Taps outside the input (the zero padding) are skipped. No local memory, no barrier: work-
// items past the output edge return at once. Each tensor f32 or f16 (half storage: NAME_LOAD / NAME_STORE; the
// weights in registers and the accumulators are float).
#define KK (FILTER_SIZE_Y * FILTER_SIZE_X)

KERNEL(convolution_gpu_depthwise)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* weights,
#if BIAS_TERM
                                  const __global INPUT2_TYPE* bias,
#endif
                                  __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const int ox0 = get_global_id(0) * XB;
    const int oy = get_global_id(1);
    const int f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const int b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    if (ox0 >= OUTPUT_SIZE_X || oy >= OUTPUT_SIZE_Y) return;

    float wr[KK];
    #pragma unroll
    for (int k = 0; k < KK; ++k)
        wr[k] = INPUT1_LOAD(weights, INPUT1_GET_INDEX(f, 0, k / FILTER_SIZE_X, k % FILTER_SIZE_X));
#if BIAS_TERM
    const float init = INPUT2_LOAD(bias, f);
#else
    const float init = 0.0f;
#endif
    float acc[XB];
    #pragma unroll
    for (int p = 0; p < XB; ++p) acc[p] = init;

    for (int ky = 0; ky < FILTER_SIZE_Y; ++ky) {
        const int iy = oy * STRIDE_Y - PAD_Y + ky * DILATION_Y;
        if (iy < 0 || iy >= INPUT0_SIZE_Y) continue;
        #pragma unroll
        for (int kx = 0; kx < FILTER_SIZE_X; ++kx) {
            const float w = wr[ky * FILTER_SIZE_X + kx];
            #pragma unroll
            for (int p = 0; p < XB; ++p) {
                const int ix = (ox0 + p) * STRIDE_X - PAD_X + kx * DILATION_X;
                if (ix >= 0 && ix < INPUT0_SIZE_X)
                    acc[p] += INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, iy, ix)) * w;
            }
        }
    }

    #pragma unroll
    for (int p = 0; p < XB; ++p) {
        const int ox = ox0 + p;
        if (ox < OUTPUT_SIZE_X) {
            float val = acc[p];
            FUSED_OPS(val, b, f, oy, ox);
            OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, oy, ox), val);
        }
    }
}
#undef KK
