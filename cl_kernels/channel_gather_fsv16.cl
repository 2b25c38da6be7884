// Channel gather on b_fs_yx_fsv16 f32 or f16 (storage) for CPU OpenCL (PoCL), the template of crop_b_fs_yx_fsv16
// (common/channel_gather.py): y[b, f, y, x] = x[b + OFFSET_B, SRC_CHANNEL(f), y + OFFSET_Y, x + OFFSET_X].
// gws = (ceil(X / CG_BLOCK), Y, slices * B), lws = (1, 1, 1): one work-item = CG_BLOCK pixels x 16 channels of one
// row. CG_ALIGNED (every output slice reads one whole input slice in order: a crop at a channel offset that is a
// multiple of 16): two float8 loads per pixel (INPUT0_LOAD8); otherwise each lane's source channel is looked up once
// and its CG_BLOCK pixels gathered into a private block, then stored as float8 pairs (CG_STORE_PIXEL:
// FSV16_STORE_PIXEL, or FSV16_STORE_PIXEL_HALF for an f16 output). The last work-item of a row is shifted left
// (x0 = X - CG_BLOCK); the last slice of a channel count that is not a multiple of 16 writes only the real channels.
#define CG_SLICES ((OUTPUT_FEATURE_NUM + 15) / 16)

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(channel_gather_fsv16)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const int x_start = (int)get_global_id(0) * CG_BLOCK;
    const int y = get_global_id(1);
    const int fs = get_global_id(2) % CG_SLICES;
    const int b = get_global_id(2) / CG_SLICES;
    const int x0 = x_start < OUTPUT_SIZE_X - CG_BLOCK ? x_start : OUTPUT_SIZE_X - CG_BLOCK;
    const __global INPUT0_TYPE* in_row = input + INPUT0_OFFSET + (b + OFFSET_B) * INPUT0_BATCH_PITCH
                                         + (y + OFFSET_Y) * INPUT0_Y_PITCH + (x0 + OFFSET_X) * 16;
    __global OUTPUT_TYPE* out = output + OUTPUT_OFFSET + b * OUTPUT_BATCH_PITCH + fs * OUTPUT_FEATURE_PITCH
                                + y * OUTPUT_Y_PITCH + x0 * 16;
    union { float8 v[2]; float s[16]; } t[CG_BLOCK];
#if CG_ALIGNED
    const __global INPUT0_TYPE* src = in_row + (fs + OFFSET_F / 16) * INPUT0_FEATURE_PITCH;
    for (int p = 0; p < CG_BLOCK; ++p) {
        t[p].v[0] = INPUT0_LOAD8(src, p * 16);
        t[p].v[1] = INPUT0_LOAD8(src, p * 16 + 8);
    }
#else
    for (int i = 0; i < 16; ++i) {
        const int f = fs * 16 + i < OUTPUT_FEATURE_NUM ? fs * 16 + i : OUTPUT_FEATURE_NUM - 1;
        const int c = SRC_CHANNEL(f);
        const __global INPUT0_TYPE* src = in_row + (c >> 4) * INPUT0_FEATURE_PITCH + (c & 15);
        for (int p = 0; p < CG_BLOCK; ++p)
            t[p].s[i] = INPUT0_LOAD(src, p * 16);
    }
#endif
    for (int p = 0; p < CG_BLOCK; ++p) {
        CG_STORE_PIXEL(out + p * 16, t[p].v[0], t[p].v[1], fs == CG_SLICES - 1);
    }
}
#undef CG_SLICES
