// GPU-tier tiled gemm (after CLBlast's Xgemm): gws (ceil(N / NWG) * TX, ceil(M / MWG) * TY, batch), lws (TX, TY, 1).
// A work-group computes the MWG x NWG tile of C at (m0, n0); per K step of KWG its TX * TY work-items load KWG x MWG
// of op(A) and KWG x NWG of op(B) into __local memory (consecutive work-items read consecutive addresses, zeros
// outside M, N, K), then each accumulates a WPT x WPT block, rows ty + TY * i and columns tx + TX * j.
// y = ALPHA * acc (+ BETA * C[broadcast]); GEMM_BATCH_COORDS / A_INDEX / B_INDEX / C_INDEX broadcast the batch.
// Each tensor f32 or f16 storage, through its LOAD / STORE macros; the __local tiles and the sums float.
KERNEL(gemm_gpu_tiled)(const __global INPUT0_TYPE* a, const __global INPUT1_TYPE* b,
#if HAS_C
                       const __global INPUT2_TYPE* c,
#endif
                       __global OUTPUT_TYPE* output)
{
    const int tx = get_local_id(0);
    const int ty = get_local_id(1);
    const int tid = ty * TX + tx;
    const int n0 = get_group_id(0) * NWG;
    const int m0 = get_group_id(1) * MWG;
    const int z = get_global_id(2);
    int bc0 = 0, bc1 = 0, bc2 = 0, bc3 = 0;
    GEMM_BATCH_COORDS(z)
    __local float als[KWG][MWG];
    __local float bls[KWG][NWG];
    float acc[WPT][WPT];
    for (int i = 0; i < WPT; ++i)
        for (int j = 0; j < WPT; ++j)
            acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < GEMM_K; k0 += KWG) {
        for (int e = tid; e < KWG * MWG; e += TX * TY) {
#if TRANS_A
            const int mm = e % MWG, kk = e / MWG;   // A stored (K, M): m contiguous
#else
            const int kk = e % KWG, mm = e / KWG;   // A stored (M, K): k contiguous
#endif
            const int m = m0 + mm, k = k0 + kk;
            als[kk][mm] = (m < GEMM_M && k < GEMM_K) ? INPUT0_LOAD(a, A_INDEX(m, k)) : 0.0f;
        }
        for (int e = tid; e < KWG * NWG; e += TX * TY) {
#if TRANS_B
            const int kk = e % KWG, nn = e / KWG;   // B stored (N, K): k contiguous
#else
            const int nn = e % NWG, kk = e / NWG;   // B stored (K, N): n contiguous
#endif
            const int n = n0 + nn, k = k0 + kk;
            bls[kk][nn] = (n < GEMM_N && k < GEMM_K) ? INPUT1_LOAD(b, B_INDEX(k, n)) : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int kk = 0; kk < KWG; ++kk) {
            float bv[WPT];
            for (int j = 0; j < WPT; ++j)
                bv[j] = bls[kk][tx + TX * j];
            for (int i = 0; i < WPT; ++i) {
                const float av = als[kk][ty + TY * i];
                for (int j = 0; j < WPT; ++j)
                    acc[i][j] += av * bv[j];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int i = 0; i < WPT; ++i) {
        const int m = m0 + ty + TY * i;
        for (int j = 0; j < WPT; ++j) {
            const int n = n0 + tx + TX * j;
            if (m < GEMM_M && n < GEMM_N) {
                float r = ALPHA * acc[i][j];
#if HAS_C
                r += BETA * INPUT2_LOAD(c, C_INDEX(m, n));
#endif
                OUTPUT_STORE(output, OUT_INDEX(m, n), r);
            }
        }
    }
}
