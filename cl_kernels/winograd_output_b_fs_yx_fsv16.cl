// Winograd F(4x4, 3x3) output transform (Lavin & Gray 2016) into a b_fs_yx_fsv16 f32 output for CPU OpenCL (PoCL):
// gws = (OC / 8, TILES_X, TILES_Y * N), lws = (1, 1, 1): the channels fastest, so consecutive work-items (PoCL runs
// the work-groups in order) touch the two 32-byte halves of the same cache lines. One work-item = one 4x4 output
// tile x 8 channels: the 36 float8 products M[(xi * 6 + nu), tile, c .. c + 7] of the (36, TILES, OC) plain input
// are reduced along xi first (s = A^T M, kept in private memory), then along nu (y = s A), the bias (HAS_BIAS:
// INPUT1, OC contiguous values) is added, the fused ops applied (FUSED_OPS8, as a convolution's epilogue) and the
// pixels inside the output stored (the last tiles may stick out); the output may be padded along features by whole
// slices (an in-place concatenation's input: OUTPUT_OFFSET holds them). Aligned float8 pointer accesses, no builtin
// call (docs/performance.md).
#define WG_OC OUTPUT_FEATURE_NUM
#define WG_TILES (OUTPUT_BATCH_NUM * TILES_Y * TILES_X)
// o0..o3 = A^T applied to m0..m5
#define WG_AT6(m0, m1, m2, m3, m4, m5, o0, o1, o2, o3) do { \
        o0 = (m0) + (m1) + (m2) + (m3) + (m4); \
        o1 = (m1) - (m2) + 2.0f * ((m3) - (m4)); \
        o2 = (m1) + (m2) + 4.0f * ((m3) + (m4)); \
        o3 = (m1) - (m2) + 8.0f * ((m3) - (m4)) + (m5); \
    } while (0)

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(winograd_output_b_fs_yx_fsv16)(const __global INPUT0_TYPE* input,
#if HAS_BIAS
                                      const __global INPUT1_TYPE* bias,
#endif
                                      __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const int c8 = get_global_id(0);
    const int tx = get_global_id(1);
    const int ty = (int)get_global_id(2) % TILES_Y;
    const int b = (int)get_global_id(2) / TILES_Y;
    const int tile = (b * TILES_Y + ty) * TILES_X + tx;
    const __global INPUT0_TYPE* m = input + INPUT0_OFFSET + tile * WG_OC + c8 * 8;
    float8 s[4][6];
    __attribute__((opencl_unroll_hint))
    for (int nu = 0; nu < 6; ++nu) {
        float8 v[6];
        __attribute__((opencl_unroll_hint))
        for (int xi = 0; xi < 6; ++xi)
            v[xi] = INPUT0_LOAD8(m, (xi * 6 + nu) * WG_TILES * WG_OC);
        WG_AT6(v[0], v[1], v[2], v[3], v[4], v[5], s[0][nu], s[1][nu], s[2][nu], s[3][nu]);
    }
#if HAS_BIAS
    const float8 bv = INPUT1_LOAD8(bias, c8 * 8);
#else
    const float8 bv = (float8)(0.0f);
#endif
    __global OUTPUT_TYPE* out = output + OUTPUT_OFFSET + b * OUTPUT_BATCH_PITCH + (c8 / 2) * OUTPUT_FEATURE_PITCH
                                + (c8 % 2) * 8;
    __attribute__((opencl_unroll_hint))
    for (int i = 0; i < 4; ++i) {
        const int y = ty * 4 + i;
        float8 r[4];
        WG_AT6(s[i][0], s[i][1], s[i][2], s[i][3], s[i][4], s[i][5], r[0], r[1], r[2], r[3]);
        __attribute__((opencl_unroll_hint))
        for (int j = 0; j < 4; ++j) {
            const int x = tx * 4 + j;
            if (y < OUTPUT_SIZE_Y && x < OUTPUT_SIZE_X) {
                float8 val = r[j] + bv;
                FUSED_OPS8(val, b, c8 * 8, y, x);
                OUTPUT_STORE8(out, y * OUTPUT_Y_PITCH + x * 16, val);
            }
        }
    }
}
#undef WG_OC
#undef WG_TILES
#undef WG_AT6
