// GPU-tier tiled fully connected (the gemm_gpu_tiled scheme, after CLBlast's Xgemm) for y[n, m] = sum_k x[n, k] *
// W[m, k] + bias[m]: gws (ceil(FC_M / NWG) * TX, ceil(FC_N / MWG) * TY), lws (TX, TY). A work-group computes MWG batch
// rows x NWG output channels; per K step of KWG it loads KWG x MWG of x and KWG x NWG of W (both k-contiguous:
// consecutive work-items read consecutive k) into __local memory, zeros outside; each work-item accumulates a
// WPT x WPT block (rows ty + TY * i, channels tx + TX * j), then bias and the fused ops per element. Each tensor f32
// or f16 storage, through its LOAD / STORE macros; the __local tiles and the sums float.
KERNEL(fully_connected_gpu_tiled)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* weights,
#if BIAS_TERM
                                  const __global INPUT2_TYPE* bias,
#endif
                                  __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const int tx = get_local_id(0);
    const int ty = get_local_id(1);
    const int tid = ty * TX + tx;
    const int m0 = get_group_id(0) * NWG;   // output channels
    const int n0 = get_group_id(1) * MWG;   // batch rows
    __local float xls[KWG][MWG];
    __local float wls[KWG][NWG];
    float acc[WPT][WPT];
    for (int i = 0; i < WPT; ++i)
        for (int j = 0; j < WPT; ++j)
            acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < FC_K; k0 += KWG) {
        for (int e = tid; e < KWG * MWG; e += TX * TY) {
            const int kk = e % KWG, nn = e / KWG;
            const int n = n0 + nn, k = k0 + kk;
            xls[kk][nn] = (n < FC_N && k < FC_K) ? INPUT0_LOAD(input, n * FC_K + k) : 0.0f;
        }
        for (int e = tid; e < KWG * NWG; e += TX * TY) {
            const int kk = e % KWG, mm = e / KWG;
            const int m = m0 + mm, k = k0 + kk;
            wls[kk][mm] = (m < FC_M && k < FC_K) ? INPUT1_LOAD(weights, m * FC_K + k) : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int kk = 0; kk < KWG; ++kk) {
            float wv[WPT];
            for (int j = 0; j < WPT; ++j)
                wv[j] = wls[kk][tx + TX * j];
            for (int i = 0; i < WPT; ++i) {
                const float xv = xls[kk][ty + TY * i];
                for (int j = 0; j < WPT; ++j)
                    acc[i][j] += xv * wv[j];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int i = 0; i < WPT; ++i) {
        const int n = n0 + ty + TY * i;
        for (int j = 0; j < WPT; ++j) {
            const int m = m0 + tx + TX * j;
            if (n < FC_N && m < FC_M) {
                float val = acc[i][j];
#if BIAS_TERM
                val += INPUT2_LOAD(bias, BIAS_INDEX(m));
#endif
                FUSED_OPS(val, n, m, 0, 0);
                OUTPUT_STORE(output, OUTPUT_GET_INDEX(n, m, 0, 0), val);
            }
        }
    }
}
