// convolution_gpu_direct: gws (ceil(OW/TX)*TX, ceil(OH/TY)*TY, N * GROUPS * OC_BLOCKS), lws (TX, TY, 1).
// A work-group computes TX x TY output pixels x OCB output channels of one group. Per slice of ICS input channels
// it stages the input patch (halo included, zeros outside the tensor) and the OCB x ICS x KH x KW weights in
// __local memory; each work-item then accumulates OCB channels of its pixel in registers. Work-items past the
// output edge or the channel tail load and synchronize like the others and store nothing. Each tensor f32 or f16
// (half storage: NAME_LOAD / NAME_STORE; the local tiles and accumulators are float).
#define KK (FILTER_SIZE_Y * FILTER_SIZE_X)
#define WG_SIZE (TX * TY)

KERNEL(convolution_gpu_direct)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* weights,
#if BIAS_TERM
                               const __global INPUT2_TYPE* bias,
#endif
                               __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    __local float tile[ICS * TILE_H * TILE_W];
    __local float wtile[OCB * ICS * KK];
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int lid = ly * TX + lx;
    const int ox0 = get_group_id(0) * TX;
    const int oy0 = get_group_id(1) * TY;
    const int ox = ox0 + lx;
    const int oy = oy0 + ly;
    const int z = get_global_id(2);
    const int oc0 = (z % OC_BLOCKS) * OCB;            // first output channel of the block, within the group
    const int g = (z / OC_BLOCKS) % GROUPS;
    const int b = z / (OC_BLOCKS * GROUPS);
    const int iy0 = oy0 * STRIDE_Y - PAD_Y;
    const int ix0 = ox0 * STRIDE_X - PAD_X;

    float acc[OCB];
    #pragma unroll
    for (int o = 0; o < OCB; ++o) acc[o] = 0.0f;

    for (int ic0 = 0; ic0 < FILTER_IFM_NUM; ic0 += ICS) {
        const int cnt = min(ICS, FILTER_IFM_NUM - ic0);
        // Input patch: consecutive work-items read consecutive x (coalesced).
        for (int i = lid; i < cnt * TILE_H * TILE_W; i += WG_SIZE) {
            const int c = i / (TILE_H * TILE_W);
            const int r = i - c * (TILE_H * TILE_W);
            const int iy = iy0 + r / TILE_W;
            const int ix = ix0 + r % TILE_W;
            float v = 0.0f;
            if (iy >= 0 && iy < INPUT0_SIZE_Y && ix >= 0 && ix < INPUT0_SIZE_X)
                v = INPUT0_LOAD(input, INPUT0_GET_INDEX(b, g * FILTER_IFM_NUM + ic0 + c, iy, ix));
            tile[i] = v;
        }
        // Weights of the block for this slice: wtile[o][c * KK + k], zeros past the channel tail.
        for (int i = lid; i < OCB * cnt * KK; i += WG_SIZE) {
            const int o = i / (cnt * KK);
            const int r = i - o * (cnt * KK);
            const int c = r / KK;
            const int k = r - c * KK;
            float v = 0.0f;
            if (oc0 + o < FILTER_OFM_PER_GROUP)
                v = INPUT1_LOAD(weights, INPUT1_GET_INDEX(g * FILTER_OFM_PER_GROUP + oc0 + o, ic0 + c,
                                                          k / FILTER_SIZE_X, k % FILTER_SIZE_X));
            wtile[o * (ICS * KK) + r] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int c = 0; c < cnt; ++c) {
            for (int ky = 0; ky < FILTER_SIZE_Y; ++ky) {
                const __local float* row = tile + (c * TILE_H + ly * STRIDE_Y + ky * DILATION_Y) * TILE_W
                                           + lx * STRIDE_X;
                const __local float* wk = wtile + c * KK + ky * FILTER_SIZE_X;
                for (int kx = 0; kx < FILTER_SIZE_X; ++kx) {
                    const float v = row[kx * DILATION_X];
                    #pragma unroll
                    for (int o = 0; o < OCB; ++o) acc[o] += v * wk[o * (ICS * KK) + kx];
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (ox < OUTPUT_SIZE_X && oy < OUTPUT_SIZE_Y) {
        #pragma unroll
        for (int o = 0; o < OCB; ++o) {
            if (oc0 + o < FILTER_OFM_PER_GROUP) {
                const int of = g * FILTER_OFM_PER_GROUP + oc0 + o;
                float val = acc[o];
#if BIAS_TERM
                val += INPUT2_LOAD(bias, of);
#endif
                FUSED_OPS(val, b, of, oy, ox);
                OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, of, oy, ox), val);
            }
        }
    }
}
#undef KK
#undef WG_SIZE
