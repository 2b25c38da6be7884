// Reference gemm: gws = (N, M, batch). y = ALPHA * sum_k A[.., m, k] * B[.., k, n] (+ BETA * C[broadcast]).
// GEMM_BATCH_COORDS sets the output batch coordinates bc0..bc3; A_INDEX / B_INDEX / C_INDEX broadcast them. Each
// tensor f32 or f16 storage, read and written through its LOAD / STORE macro; sums in float.
KERNEL(gemm_ref)(const __global INPUT0_TYPE* a, const __global INPUT1_TYPE* b,
#if HAS_C
                 const __global INPUT2_TYPE* c,
#endif
                 __global OUTPUT_TYPE* output)
{
    const int n = get_global_id(0);
    const int m = get_global_id(1);
    const int z = get_global_id(2);
    int bc0 = 0, bc1 = 0, bc2 = 0, bc3 = 0;
    GEMM_BATCH_COORDS(z)
    float acc0 = 0.0f;
    float acc1 = 0.0f;
    int k = 0;
    for (; k + 1 < GEMM_K; k += 2) {
        acc0 += INPUT0_LOAD(a, A_INDEX(m, k)) * INPUT1_LOAD(b, B_INDEX(k, n));
        acc1 += INPUT0_LOAD(a, A_INDEX(m, k + 1)) * INPUT1_LOAD(b, B_INDEX(k + 1, n));
    }
    if (k < GEMM_K)
        acc0 += INPUT0_LOAD(a, A_INDEX(m, k)) * INPUT1_LOAD(b, B_INDEX(k, n));
    float r = ALPHA * (acc0 + acc1);
#if HAS_C
    r += BETA * INPUT2_LOAD(c, C_INDEX(m, n));
#endif
    OUTPUT_STORE(output, OUT_INDEX(m, n), r);
}
