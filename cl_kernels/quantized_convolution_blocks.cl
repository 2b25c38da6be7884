// Integer convolution by exact float blocks: gws = (ceil(OW / P), OH, ceil(OC / 8) * B), local size 1. A work-item
// computes 8 output channels (float8 lanes) x P output pixels of one row. Products of the centred integers are
// summed in float, exact while every partial sum stays below 2^24: after at most CHUNK_IC input channels (CHUNK_IC *
// KH * KW * max|x - x_zp| * max|w - w_zp| < 2^24, from the types' ranges) the float sums move into int accumulators.
// Output conversion as quantized_convolution_ref.
#define OCB 8
KERNEL(quantized_convolution_blocks)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* weights,
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
    const int ox0 = get_global_id(0) * P;
    const int oy = get_global_id(1);
    const int blocks = (OUTPUT_FEATURE_NUM + OCB - 1) / OCB;
    const int of0 = (get_global_id(2) % blocks) * OCB;
    const int b = get_global_id(2) / blocks;
    const int g = of0 / FILTER_OFM_PER_GROUP;   // OCB divides FILTER_OFM_PER_GROUP (validate())
#if HAS_IZP
    const float x_zp = (float)izp[0];
#else
    const float x_zp = 0.0f;
#endif
    float w_zp[OCB];
    int wbase[OCB];
    for (int j = 0; j < OCB; ++j) {
        const int o = min(of0 + j, OUTPUT_FEATURE_NUM - 1);
#if HAS_WZP
        w_zp[j] = (float)wzp[WZP_PER_OC ? o : 0];
#else
        w_zp[j] = 0.0f;
#endif
        wbase[j] = o * FILTER_IFM_NUM * FILTER_SIZE_Y * FILTER_SIZE_X;
    }
    const float8 wz = (float8)(w_zp[0], w_zp[1], w_zp[2], w_zp[3], w_zp[4], w_zp[5], w_zp[6], w_zp[7]);
    int8 iacc[P];
    for (int p = 0; p < P; ++p) iacc[p] = (int8)(0);
    for (int ic0 = 0; ic0 < FILTER_IFM_NUM; ic0 += CHUNK_IC) {
        float8 acc[P];
        __attribute__((opencl_unroll_hint))
        for (int p = 0; p < P; ++p) acc[p] = (float8)(0.0f);
        const int ic1 = min(ic0 + CHUNK_IC, FILTER_IFM_NUM);
        for (int ic = ic0; ic < ic1; ++ic) {
            const int f = g * FILTER_IFM_NUM + ic;
            for (int ky = 0; ky < FILTER_SIZE_Y; ++ky) {
                const int iy = oy * STRIDE_Y - PAD_Y + ky * DILATION_Y;
                if (iy < 0 || iy >= INPUT0_SIZE_Y) continue;
                for (int kx = 0; kx < FILTER_SIZE_X; ++kx) {
                    const int t = (ic * FILTER_SIZE_Y + ky) * FILTER_SIZE_X + kx;
                    const float8 wv = (float8)((float)weights[wbase[0] + t], (float)weights[wbase[1] + t],
                                               (float)weights[wbase[2] + t], (float)weights[wbase[3] + t],
                                               (float)weights[wbase[4] + t], (float)weights[wbase[5] + t],
                                               (float)weights[wbase[6] + t], (float)weights[wbase[7] + t]) - wz;
                    const int row = INPUT0_GET_INDEX(b, f, iy, 0);
                    const int ix0 = ox0 * STRIDE_X - PAD_X + kx * DILATION_X;
                    if (ix0 >= 0 && ix0 + (P - 1) * STRIDE_X < INPUT0_SIZE_X) {  // the whole run inside the row
                        const __global INPUT0_TYPE* xp = input + row + ix0 * INPUT0_X_PITCH;
                        __attribute__((opencl_unroll_hint))
                        for (int p = 0; p < P; ++p)
                            acc[p] += ((float)xp[p * STRIDE_X * INPUT0_X_PITCH] - x_zp) * wv;
                    } else {
                        __attribute__((opencl_unroll_hint))
                        for (int p = 0; p < P; ++p) {
                            const int ix = ix0 + p * STRIDE_X;
                            const float xv = (ix >= 0 && ix < INPUT0_SIZE_X)
                                             ? (float)input[row + ix * INPUT0_X_PITCH] - x_zp : 0.0f;
                            acc[p] += xv * wv;
                        }
                    }
                }
            }
        }
        __attribute__((opencl_unroll_hint))
        for (int p = 0; p < P; ++p) iacc[p] += convert_int8(acc[p]);
    }
    for (int p = 0; p < P; ++p) {
        const int ox = ox0 + p;
        if (ox >= OUTPUT_SIZE_X) break;
        const int a8[OCB] = {iacc[p].s0, iacc[p].s1, iacc[p].s2, iacc[p].s3, iacc[p].s4, iacc[p].s5, iacc[p].s6,
                             iacc[p].s7};
        for (int j = 0; j < OCB; ++j) {
            const int of = of0 + j;
            if (of >= OUTPUT_FEATURE_NUM) break;
#if HAS_BIAS
            const int acc = a8[j] + (int)bias[of];
#else
            const int acc = a8[j];
#endif
            const int o = OUTPUT_GET_INDEX(b, of, oy, ox);
            QCONV_STORE(o, acc, of);
        }
    }
}
#undef OCB
