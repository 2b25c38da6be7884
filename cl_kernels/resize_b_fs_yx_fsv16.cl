// Resize of the spatial axes on b_fs_yx_fsv16 f32 or f16 (storage) for CPU OpenCL (PoCL): gws = (ceil(OX /
// RS_BLOCK), OY, slices * B), lws = (1, 1, 1). One work-item = RS_BLOCK output pixels x 16 channels of one row. Each
// output pixel sums its taps (the host-built index and weight tables of resize_ref: IDX_2 / W_2 along y, IDX_3 / W_3
// along x, every ONNX mode) over float8 pairs of 16 channels (INPUT0_LOAD8): one index and weight lookup per tap for
// 16 channels. The last work-item of a row is shifted left (x0 = OX - RS_BLOCK); the last slice of a channel count
// that is not a multiple of 16 writes only the real channels (the block tail stays as it is). RS_STORE_PIXEL:
// FSV16_STORE_PIXEL, or FSV16_STORE_PIXEL_HALF for an f16 output.
#define RS_SLICES ((OUTPUT_FEATURE_NUM + 15) / 16)

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(resize_b_fs_yx_fsv16)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    RESIZE_TABLES
    const int x_start = (int)get_global_id(0) * RS_BLOCK;
    const int oy = get_global_id(1);
    const int fs = get_global_id(2) % RS_SLICES;
    const int b = get_global_id(2) / RS_SLICES;
    const int x0 = x_start < OUTPUT_SIZE_X - RS_BLOCK ? x_start : OUTPUT_SIZE_X - RS_BLOCK;
    const __global INPUT0_TYPE* in_s = input + INPUT0_OFFSET + b * INPUT0_BATCH_PITCH + fs * INPUT0_FEATURE_PITCH;
    __global OUTPUT_TYPE* out = output + OUTPUT_OFFSET + b * OUTPUT_BATCH_PITCH + fs * OUTPUT_FEATURE_PITCH
                                + oy * OUTPUT_Y_PITCH + x0 * 16;
    for (int p = 0; p < RS_BLOCK; ++p) {
        const int ox = x0 + p;
        float8 lo = (float8)(0.0f);
        float8 hi = (float8)(0.0f);
        for (int ty = 0; ty < TAPS_2; ++ty) {
            const __global INPUT0_TYPE* row = in_s + IDX_2(oy, ty) * INPUT0_Y_PITCH;
            const float wy = W_2(oy, ty);
            for (int tx = 0; tx < TAPS_3; ++tx) {
                const __global INPUT0_TYPE* px = row + IDX_3(ox, tx) * 16;
                const float w = wy * W_3(ox, tx);
                lo = INPUT0_LOAD8(px, 0) * w + lo;
                hi = INPUT0_LOAD8(px, 8) * w + hi;
            }
        }
        RS_STORE_PIXEL(out + p * 16, lo, hi, fs == RS_SLICES - 1);
    }
}
#undef RS_SLICES
