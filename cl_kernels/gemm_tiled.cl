// Register-tiled gemm for CPU OpenCL (PoCL): y = ALPHA * op(A) . B (+ BETA * C[broadcast]).
// A (.., M, K) or transposed (.., K, M), B (.., K, N) not transposed, both plain unpadded bfyx (f32 or f16),
// N % 8 == 0, or any N in one K block (B_UNALIGNED); output (.., M, N) plain unpadded bfyx. Batch dimensions broadcast (numpy matmul): GEMM_BATCH_COORDS(z)
// sets the output batch coordinates, A_INDEX / B_INDEX / OUT_INDEX / C_INDEX map them (gemm_kernel_ref's macros).
// gws = (row groups, column panels of 16, batch), lws (1, 1, 1). One work-item owns the 16-column panel n0..n0+15
// of ROW_GROUP row blocks of TILE_M rows. For each K block of K_BLOCK (outer) and each of its row blocks (inner):
// TILE_M x 16 accumulators in registers (two float8 per row); per k two aligned float8 loads of B's row k (32-byte
// aligned: N % 8 == 0), one scalar of A per row broadcast, a*b+c. No vload/vstore/fma() builtins: on the pip PoCL
// they are calls that spill every accumulator (the pip PoCL; cldnn_py/device_probe.py measures it).
// Why K blocks and a private panel: B's 16-column panel is strided by N floats; at N = 1024 that is one 4 KiB page
// per row, which the caches hold only a few hundred rows of (set aliasing) and the prefetchers do not cross. So per
// K block the work-item first copies its K_BLOCK x 16 sub-panel of B into a private (contiguous, stack) array,
// then walks all its row blocks reading B from there (GotoBLAS's packing, per work-item; 1024^3: ~1.3x the
// in-place loop). Between K blocks the partial sums live in the output buffer (stored raw, reloaded); the last
// K block applies alpha, beta * C and stores.
// B_PANELS: B is a constant stored as 16-column panels (transpose_b with B (.., N, K) in b_fs_yx_fsv16, e.g. the
// Winograd filters U: [batch][N / 16][K][16]): each panel row is 64 contiguous bytes, read in place, so there is no
// private copy and one K block; PANELS consecutive panels per work-item (one launch cost for all of them).
// Edges: rows past M are clamped to M - 1 (those rows compute and store the same values as row M - 1, so the
// partial sums stay exact); with N % 16 == 8 the last panel runs the same loop on one float8 (NV = 1).
// Each tensor f32 or f16 storage (each its own), read and written through its LOAD / ILOAD / ALOAD8 / ASTORE8 macros
// (call-free, kernel_selector/common/inline_half.py); the accumulators and the panel float. The partial sums between
// K blocks live in the output: with an f16 output there is one K block (K <= 1.25 * 512, validate()), so the sums
// are rounded to half once, at the end.
#if HAS_C
#define ADD_C(v, row, col) { \
        union { float8 v; float s[8]; } t_; \
        __attribute__((opencl_unroll_hint)) \
        for (int i_ = 0; i_ < 8; ++i_) t_.s[i_] = (col) + i_ < GEMM_N ? INPUT2_ILOAD(c, C_INDEX(row, (col) + i_)) : 0.0f; \
        v = BETA * t_.v + v; \
    }
#else
#define ADD_C(v, row, col)
#endif
#if K_BLOCK < GEMM_K
// Partial sums of the earlier K blocks from the output, raw partial sums back unless this is the last K block.
#define LOAD_PARTIAL(NV) \
    if (k0 > 0) { \
        __attribute__((opencl_unroll_hint)) \
        for (int p = 0; p < TILE_M; ++p) { \
            acc0[p] = OUTPUT_ALOAD8(out_z + row[p] * GEMM_N + n0, 0); \
            if (NV == 2) acc1[p] = OUTPUT_ALOAD8(out_z + row[p] * GEMM_N + n0, 8); \
        } \
    }
#define STORE_PARTIAL(NV) \
    if (k1 < GEMM_K) { \
        __attribute__((opencl_unroll_hint)) \
        for (int p = 0; p < TILE_M; ++p) { \
            OUTPUT_ASTORE8(out_z + row[p] * GEMM_N + n0, 0, acc0[p]); \
            if (NV == 2) OUTPUT_ASTORE8(out_z + row[p] * GEMM_N + n0, 8, acc1[p]); \
        } \
        continue; \
    }
#else
#define LOAD_PARTIAL(NV)
#define STORE_PARTIAL(NV)
#endif

// The whole work of one work-item on NV float8 columns (2: a full 16-column panel, 1: the 8-column tail).
#if B_UNALIGNED
// N % 8 != 0 (one K block, validate()): B's rows and the output's are not 32-byte aligned. The panel is packed
// element by element (columns past N as zeros) and the output stored element by element, past N not at all.
#define PANEL_FILL(k0, k1, NV) \
        for (int k = k0; k < k1; ++k) { \
            __private float* pf_ = (__private float*)(pnl + 2 * (k - k0)); \
            __attribute__((opencl_unroll_hint)) \
            for (int i_ = 0; i_ < 16; ++i_) \
                pf_[i_] = n0 + i_ < GEMM_N ? INPUT1_LOAD(bp, k * GEMM_N + i_) : 0.0f; \
        }
#define STORE_OUT8(row, off, v) { \
        union { float8 v; float s[8]; } o_; \
        o_.v = (v); \
        __attribute__((opencl_unroll_hint)) \
        for (int i_ = 0; i_ < 8; ++i_) \
            if (n0 + (off) + i_ < GEMM_N) OUTPUT_STORE(out_z, (row) * GEMM_N + n0 + (off) + i_, o_.s[i_]); \
    }
#define PANEL_B0(k) pnl[2 * ((k) - k0)]
#define PANEL_B1(k) pnl[2 * ((k) - k0) + 1]
#elif B_PANELS
#define PANEL_FILL(k0, k1, NV)
#define PANEL_B0(k) INPUT1_ALOAD8(bp + (k) * 16, 0)
#define PANEL_B1(k) INPUT1_ALOAD8(bp + (k) * 16, 8)
#else
#define PANEL_FILL(k0, k1, NV) \
        for (int k = k0; k < k1; ++k) { \
            pnl[2 * (k - k0)] = INPUT1_ALOAD8(bp + k * GEMM_N, 0); \
            if (NV == 2) pnl[2 * (k - k0) + 1] = INPUT1_ALOAD8(bp + k * GEMM_N, 8); \
        }
#define PANEL_B0(k) pnl[2 * ((k) - k0)]
#define PANEL_B1(k) pnl[2 * ((k) - k0) + 1]
#endif
#ifndef STORE_OUT8
#define STORE_OUT8(row, off, v) OUTPUT_ASTORE8(out_z + (row) * GEMM_N + n0, off, v);
#endif
#define PANEL(NV) \
    for (int k0 = 0; k0 < GEMM_K; k0 += K_BLOCK) { \
        const int k1 = k0 + K_BLOCK < GEMM_K ? k0 + K_BLOCK : GEMM_K; \
        PANEL_FILL(k0, k1, NV) \
        for (int g = 0; g < ROW_GROUP; ++g) { \
            const int m0 = (mg * ROW_GROUP + g) * TILE_M; \
            if (m0 >= GEMM_M) break; \
            int row[TILE_M]; \
            const __global INPUT0_TYPE* ap[TILE_M]; \
            float8 acc0[TILE_M], acc1[TILE_M]; \
            __attribute__((opencl_unroll_hint)) \
            for (int p = 0; p < TILE_M; ++p) { \
                row[p] = m0 + p < GEMM_M ? m0 + p : GEMM_M - 1; \
                ap[p] = a_z + row[p] * A_M_PITCH; \
                acc0[p] = (float8)(0.0f); \
                acc1[p] = (float8)(0.0f); \
            } \
            LOAD_PARTIAL(NV) \
            for (int k = k0; k < k1; ++k) { \
                const float8 b0 = PANEL_B0(k); \
                const float8 b1 = NV == 2 ? PANEL_B1(k) : (float8)(0.0f); \
                __attribute__((opencl_unroll_hint)) \
                for (int p = 0; p < TILE_M; ++p) { \
                    const float x = INPUT0_ILOAD(ap[p], k * A_K_PITCH); \
                    acc0[p] = x * b0 + acc0[p]; \
                    if (NV == 2) acc1[p] = x * b1 + acc1[p]; \
                } \
            } \
            STORE_PARTIAL(NV) \
            __attribute__((opencl_unroll_hint)) \
            for (int p = 0; p < TILE_M; ++p) { \
                float8 v0 = ALPHA * acc0[p]; \
                ADD_C(v0, row[p], n0) \
                STORE_OUT8(row[p], 0, v0) \
                if (NV == 2) { \
                    float8 v1 = ALPHA * acc1[p]; \
                    ADD_C(v1, row[p], n0 + 8) \
                    STORE_OUT8(row[p], 8, v1) \
                } \
            } \
        } \
    }

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(gemm_tiled)(const __global INPUT0_TYPE* a, const __global INPUT1_TYPE* b,
#if HAS_C
                   const __global INPUT2_TYPE* c,
#endif
                   __global OUTPUT_TYPE* output)
{
    const int mg = get_global_id(0);
    const int z = get_global_id(2);
    int bc0 = 0, bc1 = 0, bc2 = 0, bc3 = 0;
    GEMM_BATCH_COORDS(z)
    const __global INPUT0_TYPE* a_z = a + A_INDEX(0, 0);
    __global OUTPUT_TYPE* out_z = output + OUT_INDEX(0, 0);
#if B_PANELS  // PANELS whole panels per work-item (N % 16 == 0); B's batch is the output's (no broadcast)
    for (int pi = 0; pi < PANELS; ++pi) {
        const int panel = get_global_id(1) * PANELS + pi;
        if (panel * 16 >= GEMM_N)
            break;
        const int n0 = panel * 16;
        const __global INPUT1_TYPE* bp = b + ((size_t)z * (GEMM_N / 16) + panel) * (GEMM_K * 16);
        PANEL(2)
    }
#else
    const int n0 = get_global_id(1) * 16;
    const __global INPUT1_TYPE* bp = b + B_INDEX(0, n0);
    float8 pnl[2 * K_BLOCK];  // the packed K_BLOCK x 16 sub-panel of B (K_BLOCK * 64 bytes of stack)
#if GEMM_N % 16 && !B_UNALIGNED
    if (n0 + 16 > GEMM_N) {
        PANEL(1)
        return;
    }
#endif
    PANEL(2)
#endif
}

#undef ADD_C
#undef LOAD_PARTIAL
#undef STORE_PARTIAL
#undef PANEL
#undef PANEL_FILL
#undef PANEL_B0
#undef PANEL_B1
#undef STORE_OUT8
