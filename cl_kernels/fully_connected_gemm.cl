// Register-tiled fully connected (GEMM form) for CPU OpenCL (PoCL), batches > 8: y[n, m] = sum_k x[n, k] W[m, k]
// + bias[m], then the fused ops. INPUT0 x (N, K) plain unpadded bfyx (any rank, flattened in buffer order),
// INPUT1 W packed os_iyx_osv16: [ceil(M/16)][K][16], so row k of output slice s is 16 contiguous floats at
// w + (s * K + k) * 16 (64-byte aligned: the B panel of a GEMM). INPUT2 bias (M elements, read through BIAS_INDEX).
// One work-item = TILE_ROWS batch rows x 16 outputs (one slice): two float8 accumulators per row; per k two
// aligned float8 loads of the panel row, one broadcast of x per row, a*b+c (no vload/fma builtins: calls on the
// pip PoCL, see cldnn_py/device_probe.py). The last row block is shifted back onto its neighbour (n0 = N - TILE_ROWS)
// and rewrites a few rows with the same values. Output (N, M) plain unpadded bfyx: float8 stores when M % 8 == 0
// (the last slice stores only its real outputs), scalar stores otherwise. Fused ops: FUSED_OPS8 on each float8.
// gws = (ceil(N / TILE_ROWS), ceil(M / 16)), lws (1, 1, 1): neighbouring work-items share one weight panel.
// Each tensor f32 or f16 storage (each its own): read and written through its LOAD / ILOAD / ALOAD8 / STORE / ASTORE8
// macros (the inner loop call-free, kernel_selector/common/inline_half.py), the accumulators float.
#define FCG_SLICES ((FCG_M + 15) / 16)

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(fully_connected_gemm)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* weights,
#if BIAS_TERM
                             const __global INPUT2_TYPE* bias,
#endif
                             __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const int rb = get_global_id(0) * TILE_ROWS;
    const int n0 = rb < FCG_N - TILE_ROWS ? rb : FCG_N - TILE_ROWS;
    const int s = get_global_id(1);
    const int m0 = s * 16;
    const __global INPUT0_TYPE* xp = input + (size_t)n0 * FCG_K;
    const __global INPUT1_TYPE* wp = weights + (size_t)s * FCG_K * 16;

    float8 acc0[TILE_ROWS], acc1[TILE_ROWS];
    __attribute__((opencl_unroll_hint))
    for (int p = 0; p < TILE_ROWS; ++p) {
        acc0[p] = (float8)(0.0f);
        acc1[p] = (float8)(0.0f);
    }
    for (int k = 0; k < FCG_K; ++k) {
        const float8 w0 = INPUT1_ALOAD8(wp, k * 16);
        const float8 w1 = INPUT1_ALOAD8(wp, k * 16 + 8);
        __attribute__((opencl_unroll_hint))
        for (int p = 0; p < TILE_ROWS; ++p) {
            const float x = INPUT0_ILOAD(xp, p * FCG_K + k);
            acc0[p] = x * w0 + acc0[p];
            acc1[p] = x * w1 + acc1[p];
        }
    }

    // Epilogue: bias (16 values of this slice, clamped to M - 1 past the end), fused ops, stores.
#if BIAS_TERM
    float bb[16];
    __attribute__((opencl_unroll_hint))
    for (int i = 0; i < 16; ++i) bb[i] = INPUT2_ILOAD(bias, BIAS_INDEX(m0 + i < FCG_M ? m0 + i : FCG_M - 1));
    const float8 b0 = (float8)(bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7]);
    const float8 b1 = (float8)(bb[8], bb[9], bb[10], bb[11], bb[12], bb[13], bb[14], bb[15]);
#else
    const float8 b0 = (float8)(0.0f);
    const float8 b1 = (float8)(0.0f);
#endif
    __global OUTPUT_TYPE* out = output + (size_t)n0 * FCG_M + m0;
    __attribute__((opencl_unroll_hint))
    for (int p = 0; p < TILE_ROWS; ++p) {
        float8 v0 = acc0[p] + b0;
        float8 v1 = acc1[p] + b1;
        FUSED_OPS8(v0, n0 + p, m0, 0, 0);
        FUSED_OPS8(v1, n0 + p, m0 + 8, 0, 0);
#if FCG_M % 8 == 0
#if FCG_M % 16 == 0
        OUTPUT_ASTORE8(out, p * FCG_M, v0);
        OUTPUT_ASTORE8(out, p * FCG_M + 8, v1);
#else
        OUTPUT_ASTORE8(out, p * FCG_M, v0);
        if (s < FCG_SLICES - 1) OUTPUT_ASTORE8(out, p * FCG_M + 8, v1);
#endif
#else
        union { float8 v[2]; float e[16]; } t;
        t.v[0] = v0;
        t.v[1] = v1;
        const int nm = s < FCG_SLICES - 1 ? 16 : FCG_M - m0;
        for (int i = 0; i < nm; ++i) OUTPUT_STORE(out, p * FCG_M + i, t.e[i]);
#endif
    }
}

#undef FCG_SLICES
