// convolution_gpu_igemm: a convolution as an implicit GEMM per group, C[m][n] = sum_k A[m][k] * B[k][n], with
//   m = output channel within the group (A = the oiyx weight rows, k = (c, ky, kx) contiguous),
//   n = (b, oy, ox) flattened over the batch, B[k][n] = input[b, g*ICg + c, oy*SY - PY + ky*DY, ox*SX - PX + kx*DX]
//   gathered on the fly (zeros outside the tensor: no im2col buffer).
// gws (ceil(N / NWG) * TX, ceil(M / MWG) * TY, GROUPS), lws (TX, TY, 1). A work-group computes the MWG x NWG tile
// of C at (m0, n0); per K step of KWG its TX*TY work-items load KWG x MWG of A and KWG x NWG of B into __local
// memory (LOADS_A and LOADS_B elements each; consecutive work-items take consecutive k of a weight row and
// consecutive n, i.e. consecutive ox), then each accumulates a WPT x WPT block: with VEC 0 rows ty + TY*i and
// columns tx + TX*j (scalar local reads, CLBlast's strided layout), with VEC 1 rows ty*WPT + i and columns
// tx*WPT + j, read from the local tiles as float2/float4 vectors (WPT/VW reads of VW floats per operand and K step).
// The pixel of each B element a work-item loads is fixed for the whole K loop, so its (b, iy0, ix0) are decoded
// once. Bias and FUSED_OPS in the epilogue. Each tensor f32 or f16 (half storage: NAME_LOAD / NAME_STORE; the
// local tiles and accumulators are float).
#define KK (FILTER_SIZE_Y * FILTER_SIZE_X)
#define GEMM_K (FILTER_IFM_NUM * KK)
#define GEMM_M FILTER_OFM_PER_GROUP
#define OHW (OUTPUT_SIZE_Y * OUTPUT_SIZE_X)
#define GEMM_N (OUTPUT_BATCH_NUM * OHW)
#define WG (TX * TY)
#define LOADS_A (KWG * MWG / WG)
#define LOADS_B (KWG * NWG / WG)
#if VEC
#  define VW (WPT < 4 ? WPT : 4)
#  if VW == 4
#    define VEC_T float4
#    define UNPACK(dst, o, v) dst[(o)] = (v).s0; dst[(o) + 1] = (v).s1; dst[(o) + 2] = (v).s2; dst[(o) + 3] = (v).s3;
#  else
#    define VEC_T float2
#    define UNPACK(dst, o, v) dst[(o)] = (v).s0; dst[(o) + 1] = (v).s1;
#  endif
#  define ROW(i) (ty * WPT + (i))
#  define COL(j) (tx * WPT + (j))
#  define APAD 4   // keeps each row of als VW-aligned; column stores of consecutive k still spread over banks
#else
#  define ROW(i) (ty + TY * (i))
#  define COL(j) (tx + TX * (j))
#  define APAD 1
#endif
#define ASTRIDE (MWG + APAD)

KERNEL(convolution_gpu_igemm)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* weights,
#if BIAS_TERM
                              const __global INPUT2_TYPE* bias,
#endif
                              __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const int tx = get_local_id(0);
    const int ty = get_local_id(1);
    const int tid = ty * TX + tx;
    const int n0 = get_group_id(0) * NWG;
    const int m0 = get_group_id(1) * MWG;
    const int g = get_group_id(2);
#if VEC
    __local VEC_T als_v[KWG * ASTRIDE / VW];   // vector-typed: the vector reads below are aligned
    __local VEC_T bls_v[KWG * NWG / VW];
    __local float* als = (__local float*)als_v;
    __local float* bls = (__local float*)bls_v;
#else
    __local float als[KWG * ASTRIDE];   // row stride MWG + 1: the column stores of consecutive k hit other banks
    __local float bls[KWG * NWG];
#endif

    int bbase[LOADS_B], biy[LOADS_B], bix[LOADS_B];
    #pragma unroll
    for (int i = 0; i < LOADS_B; ++i) {
        const int n = n0 + (tid + i * WG) % NWG;
        const int b = n / OHW;
        const int r = n - b * OHW;
        const int oy = r / OUTPUT_SIZE_X;
        const int ox = r - oy * OUTPUT_SIZE_X;
        bbase[i] = INPUT0_OFFSET + b * INPUT0_BATCH_PITCH + g * FILTER_IFM_NUM * INPUT0_FEATURE_PITCH;
        biy[i] = n < GEMM_N ? oy * STRIDE_Y - PAD_Y : -(1 << 28);   // a pixel past N reads zeros: iy < 0
        bix[i] = ox * STRIDE_X - PAD_X;
    }
    const __global INPUT1_TYPE* wrows = weights + (g * GEMM_M) * GEMM_K;

    float acc[WPT][WPT];
    #pragma unroll
    for (int i = 0; i < WPT; ++i)
        #pragma unroll
        for (int j = 0; j < WPT; ++j)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < GEMM_K; k0 += KWG) {
        #pragma unroll
        for (int i = 0; i < LOADS_A; ++i) {
            const int e = tid + i * WG;
            const int kk = e % KWG, mm = e / KWG;
            const int m = m0 + mm, k = k0 + kk;
            als[kk * ASTRIDE + mm] = (m < GEMM_M && k < GEMM_K) ? INPUT1_LOAD(wrows, m * GEMM_K + k) : 0.0f;
        }
        #pragma unroll
        for (int i = 0; i < LOADS_B; ++i) {
            const int e = tid + i * WG;
            const int kk = e / NWG, nn = e % NWG;
            const int k = k0 + kk;
            const int c = k / KK;
            const int kr = k - c * KK;
            const int ky = kr / FILTER_SIZE_X;
            const int kx = kr - ky * FILTER_SIZE_X;
            const int iy = biy[i] + ky * DILATION_Y;
            const int ix = bix[i] + kx * DILATION_X;
            float v = 0.0f;
            if (k < GEMM_K && iy >= 0 && iy < INPUT0_SIZE_Y && ix >= 0 && ix < INPUT0_SIZE_X)
                v = INPUT0_LOAD(input, bbase[i] + c * INPUT0_FEATURE_PITCH + iy * INPUT0_Y_PITCH + ix * INPUT0_X_PITCH);
            bls[kk * NWG + nn] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        #pragma unroll 4
        for (int kk = 0; kk < KWG; ++kk) {
            float av[WPT], bv[WPT];
#if VEC
            #pragma unroll
            for (int v = 0; v < WPT / VW; ++v) {
                const VEC_T a4 = als_v[(kk * ASTRIDE + ty * WPT) / VW + v];
                const VEC_T b4 = bls_v[(kk * NWG + tx * WPT) / VW + v];
                UNPACK(av, v * VW, a4)
                UNPACK(bv, v * VW, b4)
            }
#else
            #pragma unroll
            for (int i = 0; i < WPT; ++i) {
                av[i] = als[kk * ASTRIDE + ty + TY * i];
                bv[i] = bls[kk * NWG + tx + TX * i];
            }
#endif
            #pragma unroll
            for (int i = 0; i < WPT; ++i)
                #pragma unroll
                for (int j = 0; j < WPT; ++j)
                    acc[i][j] += av[i] * bv[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    #pragma unroll
    for (int j = 0; j < WPT; ++j) {
        const int n = n0 + COL(j);
        if (n >= GEMM_N)
            continue;
        const int b = n / OHW;
        const int r = n - b * OHW;
        const int oy = r / OUTPUT_SIZE_X;
        const int ox = r - oy * OUTPUT_SIZE_X;
        #pragma unroll
        for (int i = 0; i < WPT; ++i) {
            const int m = m0 + ROW(i);
            if (m < GEMM_M) {
                const int of = g * GEMM_M + m;
                float val = acc[i][j];
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
#undef GEMM_K
#undef GEMM_M
#undef OHW
#undef GEMM_N
#undef WG
#undef LOADS_A
#undef LOADS_B
#undef ROW
#undef COL
#undef APAD
#undef ASTRIDE
#ifdef VW
#  undef VW
#  undef VEC_T
#  undef UNPACK
#endif
