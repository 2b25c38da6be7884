// Winograd F(4x4, 3x3) input transform (Lavin & Gray 2016) of a b_fs_yx_fsv16 f32 input for CPU OpenCL (PoCL):
// gws = (C / 8, TILES_X, TILES_Y * N), lws = (1, 1, 1): the channels fastest, so consecutive work-items (PoCL runs
// the work-groups in order) touch the two 32-byte halves of the same cache lines. One work-item = one 6x6 input
// tile (rows 4*ty - PAD_Y ..., columns 4*tx - PAD_X ..., zeros outside the image) x 8 channels (one float8 half of a
// 16-channel slice): the rows are transformed first (t = d B, kept in private memory), then the columns (V = B^T t),
// and the 36 float8 results are stored at V[(xi * 6 + nu), tile, c .. c + 7] of the (36, TILES, C) plain output,
// tile = (b * TILES_Y + ty) * TILES_X + tx. Aligned float8 pointer accesses, no builtin call (docs/performance.md).
#define WG_C INPUT0_FEATURE_NUM
#define WG_TILES (INPUT0_BATCH_NUM * TILES_Y * TILES_X)
// o0..o5 = B^T applied to d0..d5 (the rows of B^T for the points 0, +-1, +-2)
#define WG_BT6(d0, d1, d2, d3, d4, d5, o0, o1, o2, o3, o4, o5) do { \
        o0 = 4.0f * (d0) - 5.0f * (d2) + (d4); \
        o1 = -4.0f * ((d1) + (d2)) + (d3) + (d4); \
        o2 = 4.0f * ((d1) - (d2)) - (d3) + (d4); \
        o3 = 2.0f * ((d3) - (d1)) - (d2) + (d4); \
        o4 = 2.0f * ((d1) - (d3)) - (d2) + (d4); \
        o5 = 4.0f * (d1) - 5.0f * (d3) + (d5); \
    } while (0)

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(winograd_input_b_fs_yx_fsv16)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const int c8 = get_global_id(0);
    const int tx = get_global_id(1);
    const int ty = (int)get_global_id(2) % TILES_Y;
    const int b = (int)get_global_id(2) / TILES_Y;
    const int x0 = tx * 4 - PAD_X;
    const int y0 = ty * 4 - PAD_Y;
    const __global INPUT0_TYPE* in = input + INPUT0_OFFSET + b * INPUT0_BATCH_PITCH + (c8 / 2) * INPUT0_FEATURE_PITCH
                                     + (c8 % 2) * 8;
    float8 t[6][6];
    __attribute__((opencl_unroll_hint))
    for (int i = 0; i < 6; ++i) {
        const int y = y0 + i;
        float8 d[6];
        __attribute__((opencl_unroll_hint))
        for (int j = 0; j < 6; ++j) {
            const int x = x0 + j;
            d[j] = (y >= 0 && y < INPUT0_SIZE_Y && x >= 0 && x < INPUT0_SIZE_X)
                   ? INPUT0_LOAD8(in, y * INPUT0_Y_PITCH + x * 16) : (float8)(0.0f);
        }
        WG_BT6(d[0], d[1], d[2], d[3], d[4], d[5], t[i][0], t[i][1], t[i][2], t[i][3], t[i][4], t[i][5]);
    }
    const int tile = (b * TILES_Y + ty) * TILES_X + tx;
    __global OUTPUT_TYPE* out = output + OUTPUT_OFFSET + tile * WG_C + c8 * 8;
    __attribute__((opencl_unroll_hint))
    for (int nu = 0; nu < 6; ++nu) {
        float8 v[6];
        WG_BT6(t[0][nu], t[1][nu], t[2][nu], t[3][nu], t[4][nu], t[5][nu], v[0], v[1], v[2], v[3], v[4], v[5]);
        __attribute__((opencl_unroll_hint))
        for (int xi = 0; xi < 6; ++xi)
            OUTPUT_STORE8(out, (xi * 6 + nu) * WG_TILES * WG_C, v[xi]);
    }
}
#undef WG_C
#undef WG_TILES
#undef WG_BT6
