// GEMV-style fully connected for CPU OpenCL (PoCL): gws = (N, ceil(M / ROWS)), lws (1, 1, 1); the N work-items
// of one row block run back to back and share its weights in cache (FC6 batch 8: 9 ms instead of 32).
// One work-item computes ROWS (8) outputs m0..m0+7 of batch n: for each float8 chunk of k it loads the input
// chunk once and one aligned float8 of each weight row, accumulating a float8 per row (a*b+c, no builtins: the
// pip PoCL turns vload8/fma into calls that spill every accumulator). Horizontal sums, bias and FUSED_OPS per
// output at the end. Input bfyx unpadded (row n at n * K), weights (M, K) bfyx unpadded, K % 8 == 0, so every
// float8 load is 32-byte aligned (16 for half). Rows past M (last block) are clamped to M - 1 and not stored.
// Each tensor f32 or f16 storage (each its own): the chunks read through INPUT0/1_ALOAD8 (for half the inlined
// F16C conversion, kernel_selector/common/inline_half.py: half weights halve the bytes streamed), sums in float.
#define K_CHUNKS (GEMV_K / 8)

#ifndef FULLY_CONNECTED_GEMV_HELPERS_CL  // several instances share one batched program: define helpers once
#define FULLY_CONNECTED_GEMV_HELPERS_CL
static inline float hsum8(float8 v)
{
    const float4 a = v.lo + v.hi;
    const float2 b = a.lo + a.hi;
    return b.x + b.y;
}
#endif

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(fully_connected_gemv)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* weights,
#if BIAS_TERM
                             const __global INPUT2_TYPE* bias,
#endif
                             __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const int m0 = get_global_id(1) * ROWS;
    const int n = get_global_id(0);
    const __global INPUT0_TYPE* xp = input + (size_t)n * GEMV_K;
#define ROW_PTR(r) const __global INPUT1_TYPE* w##r = weights + \
        (size_t)(m0 + (r) < GEMV_M ? m0 + (r) : GEMV_M - 1) * GEMV_K
    ROW_PTR(0); ROW_PTR(1); ROW_PTR(2); ROW_PTR(3); ROW_PTR(4); ROW_PTR(5); ROW_PTR(6); ROW_PTR(7);
#undef ROW_PTR
    float8 a0 = (float8)(0.0f), a1 = (float8)(0.0f), a2 = (float8)(0.0f), a3 = (float8)(0.0f);
    float8 a4 = (float8)(0.0f), a5 = (float8)(0.0f), a6 = (float8)(0.0f), a7 = (float8)(0.0f);
    for (int c = 0; c < K_CHUNKS; ++c) {
        const float8 xv = INPUT0_ALOAD8(xp, c * 8);
        a0 = INPUT1_ALOAD8(w0, c * 8) * xv + a0;
        a1 = INPUT1_ALOAD8(w1, c * 8) * xv + a1;
        a2 = INPUT1_ALOAD8(w2, c * 8) * xv + a2;
        a3 = INPUT1_ALOAD8(w3, c * 8) * xv + a3;
        a4 = INPUT1_ALOAD8(w4, c * 8) * xv + a4;
        a5 = INPUT1_ALOAD8(w5, c * 8) * xv + a5;
        a6 = INPUT1_ALOAD8(w6, c * 8) * xv + a6;
        a7 = INPUT1_ALOAD8(w7, c * 8) * xv + a7;
    }
    float s[ROWS];
    s[0] = hsum8(a0); s[1] = hsum8(a1); s[2] = hsum8(a2); s[3] = hsum8(a3);
    s[4] = hsum8(a4); s[5] = hsum8(a5); s[6] = hsum8(a6); s[7] = hsum8(a7);
    for (int r = 0; r < ROWS; ++r) {
        const int m = m0 + r;
        if (m < GEMV_M) {
            float acc = s[r];
#if BIAS_TERM
            acc += INPUT2_ILOAD(bias, BIAS_INDEX(m));
#endif
            FUSED_OPS(acc, n, m, 0, 0);
            OUTPUT_STORE(output, OUTPUT_GET_INDEX(n, m, 0, 0), acc);
        }
    }
}
#undef K_CHUNKS
