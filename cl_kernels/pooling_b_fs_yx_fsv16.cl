// Blocked pooling for CPU OpenCL (PoCL): INPUT0 and OUTPUT in b_fs_yx_fsv16, padding allowed.
// One work-item = 16 channels (two float8) x OUT_BLOCK output pixels of one output row;
// gws = (ceil(OW / OUT_BLOCK), OH, ceil(C / 16) * B), lws = (1, 1, 1).
// Semantics are pooling_ref's: window taps o*STRIDE - PAD + t*DILATION, t in [0, POOL_SIZE), per axis;
// POOL_MODE 0: max over the taps inside the input (the halo never wins, whatever the padding holds);
// 1: sum / (taps inside [-PAD, SIZE + PAD_END)); 2: sum / (taps inside the input).
// Max is written `v > m ? v : m` (fmax() is a call on the pip PoCL, and a call spills every register); loads are
// aligned float8 pointer accesses (INPUT0_LOAD8 / OUTPUT_STORE8: for half storage vload_half8 / vstore_half8_rte,
// the accumulators stay float8). The last block of a row is shifted left onto its neighbour (it recomputes and
// rewrites the same values), so every work-item runs the same unrolled loops.
// CHECK_X 0: no tap of any output pixel leaves [0, INPUT0_SIZE_X) (no pad, windows inside), so no x checks at all;
// otherwise work-items whose taps all lie inside run the unchecked loops and the border ones check every tap.
// Rows outside the input are skipped (one uniform test per row).

#define PL_OCS ((OUTPUT_FEATURE_NUM + 15) / 16)
#define PL_LD8(p, i) INPUT0_LOAD8(p, (i) * 8)
#define PL_ST8(p, i, v) OUTPUT_STORE8(p, (i) * 8, v)
#define PL_KX_UNROLL __attribute__((opencl_unroll_hint(POOL_SIZE_X <= 8 ? POOL_SIZE_X : 1)))
#if POOL_MODE == 0
#define PL_ACC(a, v) a = (v) > (a) ? (v) : (a)
#define PL_INIT ((float8)(-INFINITY))
#else
#define PL_ACC(a, v) a += (v)
#define PL_INIT ((float8)(0.0f))
#endif

// Every tap of row iy; CHECKED tests each tap's column.
#define PL_ROW(CHECKED) \
    PL_KX_UNROLL \
    for (int kx = 0; kx < POOL_SIZE_X; ++kx) { \
        __attribute__((opencl_unroll_hint)) \
        for (int p = 0; p < OUT_BLOCK; ++p) { \
            const int ix = (ox0 + p) * STRIDE_X - PAD_X + kx * DILATION_X; \
            if (!(CHECKED) || (ix >= 0 && ix < INPUT0_SIZE_X)) { \
                const __global INPUT0_TYPE* ip = in_row + ix * 16; \
                PL_ACC(a0[p], PL_LD8(ip, 0)); \
                PL_ACC(a1[p], PL_LD8(ip, 1)); \
            } \
        } \
    }

#define PL_LOOPS(CHECKED) \
    for (int ky = 0; ky < POOL_SIZE_Y; ++ky) { \
        const int iy = y0 + ky * DILATION_Y; \
        if (iy < 0 || iy >= INPUT0_SIZE_Y) continue; \
        const __global INPUT0_TYPE* in_row = in_b + iy * INPUT0_Y_PITCH; \
        PL_ROW(CHECKED) \
    }

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(pooling_b_fs_yx_fsv16)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const int ox_start = (int)get_global_id(0) * OUT_BLOCK;
    const int oy = get_global_id(1);
    const int fs = get_global_id(2) % PL_OCS;
    const int b = get_global_id(2) / PL_OCS;
    const int ox0 = ox_start < OUTPUT_SIZE_X - OUT_BLOCK ? ox_start : OUTPUT_SIZE_X - OUT_BLOCK;
    const int y0 = oy * STRIDE_Y - PAD_Y;

    float8 a0[OUT_BLOCK], a1[OUT_BLOCK];
    __attribute__((opencl_unroll_hint))
    for (int p = 0; p < OUT_BLOCK; ++p) {
        a0[p] = PL_INIT;
        a1[p] = PL_INIT;
    }
    const __global INPUT0_TYPE* in_b = input + INPUT0_OFFSET + b * INPUT0_BATCH_PITCH + fs * INPUT0_FEATURE_PITCH;

#if CHECK_X
    if (ox0 * STRIDE_X - PAD_X >= 0
        && (ox0 + OUT_BLOCK - 1) * STRIDE_X - PAD_X + (POOL_SIZE_X - 1) * DILATION_X < INPUT0_SIZE_X) {
        PL_LOOPS(0)
    } else {
        PL_LOOPS(1)
    }
#else
    PL_LOOPS(0)
#endif

#if POOL_MODE != 0
    int cy = 0;  // POOL_MODE 1: taps inside the padded extent; 2: taps inside the input (along y)
    for (int ky = 0; ky < POOL_SIZE_Y; ++ky) {
        const int iy = y0 + ky * DILATION_Y;
#if POOL_MODE == 1
        cy += (iy < INPUT0_SIZE_Y + PAD_END_Y);
#else
        cy += (iy >= 0 && iy < INPUT0_SIZE_Y);
#endif
    }
#endif

    const int f0 = fs * 16;
    __global OUTPUT_TYPE* out = output + OUTPUT_OFFSET + b * OUTPUT_BATCH_PITCH + fs * OUTPUT_FEATURE_PITCH
                                + oy * OUTPUT_Y_PITCH + ox0 * 16;
    __attribute__((opencl_unroll_hint))
    for (int p = 0; p < OUT_BLOCK; ++p) {
        float8 v0 = a0[p];
        float8 v1 = a1[p];
#if POOL_MODE != 0
        int cx = 0;
        for (int kx = 0; kx < POOL_SIZE_X; ++kx) {
            const int ix = (ox0 + p) * STRIDE_X - PAD_X + kx * DILATION_X;
#if POOL_MODE == 1
            cx += (ix < INPUT0_SIZE_X + PAD_END_X);
#else
            cx += (ix >= 0 && ix < INPUT0_SIZE_X);
#endif
        }
        const float cnt = (float)(cy * cx);
        v0 = v0 / cnt;
        v1 = v1 / cnt;
#endif
        FUSED_OPS8(v0, b, f0, oy, ox0 + p);
        FUSED_OPS8(v1, b, f0 + 8, oy, ox0 + p);
#if OUTPUT_FEATURE_NUM % 16 != 0
        if (fs == PL_OCS - 1) {  // last slice: only the real channels, the block tail stays as it is
            union { float8 v[2]; float s[16]; } t;
            t.v[0] = v0;
            t.v[1] = v1;
            __attribute__((opencl_unroll_hint))
            for (int i = 0; i < OUTPUT_FEATURE_NUM % 16; ++i) OUTPUT_STORE(out, p * 16 + i, t.s[i]);
            continue;
        }
#endif
        PL_ST8(out + p * 16, 0, v0);
        PL_ST8(out + p * 16, 1, v1);
    }
}

#undef PL_OCS
#undef PL_LD8
#undef PL_ST8
#undef PL_KX_UNROLL
#undef PL_ACC
#undef PL_INIT
#undef PL_ROW
#undef PL_LOOPS
