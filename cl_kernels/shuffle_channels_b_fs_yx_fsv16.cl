// Channel shuffle of b_fs_yx_fsv16 data into b_fs_yx_fsv16: output channel f reads input channel
// (f % GROUP) * GROUP_SIZE + f / GROUP. gws = (ceil(OUTPUT_SIZE_X / SHUF_BLOCK), OUTPUT_SIZE_Y, SLICES * BATCH),
// lws = (1, 1, 1): a work-item writes SHUF_BLOCK pixels of one row of one output slice (16 channels, contiguous per
// pixel); the 16 source rows are found once (16 channel divisions), then each pixel gathers one value from each.
// The last slice of a channel count that is not a multiple of 16 writes only its real channels (the block tail is
// left as it is, as every fsv16 kernel here does). Input and output may be padded along batch, y and x.
#define SLICES ((OUTPUT_FEATURE_NUM + 15) / 16)

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(shuffle_channels_b_fs_yx_fsv16)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const int x0 = (int)get_global_id(0) * SHUF_BLOCK;
    const int y = get_global_id(1);
    const int fs = get_global_id(2) % SLICES;
    const int b = get_global_id(2) / SLICES;
    const int n = OUTPUT_SIZE_X - x0 < SHUF_BLOCK ? OUTPUT_SIZE_X - x0 : SHUF_BLOCK;
#if OUTPUT_FEATURE_NUM % 16 != 0
    const int lanes = fs == SLICES - 1 ? OUTPUT_FEATURE_NUM % 16 : 16;
#else
    const int lanes = 16;
#endif
    int srow[16];
    __attribute__((opencl_unroll_hint))
    for (int l = 0; l < 16; ++l) {
        const int f = fs * 16 + l;
        const int src = f < OUTPUT_FEATURE_NUM ? (f % GROUP) * GROUP_SIZE + f / GROUP : 0;
        srow[l] = INPUT0_OFFSET + b * INPUT0_BATCH_PITCH + (src / 16) * INPUT0_FEATURE_PITCH + y * INPUT0_Y_PITCH
                  + x0 * INPUT0_X_PITCH + src % 16;
    }
    __global OUTPUT_TYPE* dst = output + OUTPUT_OFFSET + b * OUTPUT_BATCH_PITCH + fs * OUTPUT_FEATURE_PITCH
                                + y * OUTPUT_Y_PITCH + x0 * OUTPUT_X_PITCH;
    if (lanes == 16) {
        for (int p = 0; p < n; ++p) {
            __attribute__((opencl_unroll_hint))
            for (int l = 0; l < 16; ++l)
                OUTPUT_STORE(dst, p * OUTPUT_X_PITCH + l,
                             (OUTPUT_VAL_TYPE)INPUT0_LOAD(input, srow[l] + p * INPUT0_X_PITCH));
        }
    } else {
        for (int p = 0; p < n; ++p)
            for (int l = 0; l < lanes; ++l)
                OUTPUT_STORE(dst, p * OUTPUT_X_PITCH + l,
                             (OUTPUT_VAL_TYPE)INPUT0_LOAD(input, srow[l] + p * INPUT0_X_PITCH));
    }
}
#undef SLICES
