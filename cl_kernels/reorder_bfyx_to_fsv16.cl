// bfyx -> b_fs_yx_fsv16 reorder (the network's input reorder; f32 or f16 on either side):
// gws = (ceil(X / RB_BLOCK), Y, slices * B), lws = (1, 1, 1). One work-item moves RB_BLOCK pixels of one row for the
// 16 (or, in the last slice, OUTPUT_FEATURE_NUM % 16) channels of one slice: per channel a run of contiguous input
// values, written 16 apart. Input and output may be padded along y, x and batch; the output's block tail is not
// written. The last block of a row is shifted left onto its neighbour (it rewrites the same values). Read through
// INPUT0_ILOAD (common/inline_half.py: call-free for half), written through OUTPUT_STORE (half: rounding to nearest
// even); plain indexing for f32.

#define RB_SLICES ((OUTPUT_FEATURE_NUM + 15) / 16)
#define RB_COPY(p, c) \
    OUTPUT_STORE(dst, (p) * 16 + (c), INPUT0_ILOAD(src, (c) * INPUT0_FEATURE_PITCH + (p) * INPUT0_X_PITCH))

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(reorder_bfyx_to_fsv16)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const int x_start = (int)get_global_id(0) * RB_BLOCK;
    const int y = get_global_id(1);
    const int fs = get_global_id(2) % RB_SLICES;
    const int b = get_global_id(2) / RB_SLICES;
    const int x0 = x_start < OUTPUT_SIZE_X - RB_BLOCK ? x_start : OUTPUT_SIZE_X - RB_BLOCK;
    const __global INPUT0_TYPE* src = input + INPUT0_OFFSET + b * INPUT0_BATCH_PITCH + fs * 16 * INPUT0_FEATURE_PITCH
                                      + y * INPUT0_Y_PITCH + x0 * INPUT0_X_PITCH;
    __global OUTPUT_TYPE* dst = output + OUTPUT_OFFSET + b * OUTPUT_BATCH_PITCH + fs * OUTPUT_FEATURE_PITCH
                                + y * OUTPUT_Y_PITCH + x0 * 16;
#if OUTPUT_FEATURE_NUM % 16 != 0
    if (fs == RB_SLICES - 1) {
        __attribute__((opencl_unroll_hint))
        for (int c = 0; c < OUTPUT_FEATURE_NUM % 16; ++c) {
            __attribute__((opencl_unroll_hint))
            for (int p = 0; p < RB_BLOCK; ++p) RB_COPY(p, c);
        }
        return;
    }
#endif
    __attribute__((opencl_unroll_hint))
    for (int c = 0; c < 16; ++c) {
        __attribute__((opencl_unroll_hint))
        for (int p = 0; p < RB_BLOCK; ++p) RB_COPY(p, c);
    }
}

#undef RB_SLICES
#undef RB_COPY
