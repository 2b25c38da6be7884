// Feature-axis concatenation of b_fs_yx_fsv16 inputs into a b_fs_yx_fsv16 output, one enqueue for all inputs.
// gws = (ceil(OUTPUT_SIZE_X / CAT_BLOCK), OUTPUT_SIZE_Y, OUTPUT_SLICES * OUTPUT_BATCH_NUM), lws = (1, 1, 1):
// one work-item copies CAT_BLOCK pixels of one row of one output slice. When every input but the last has a
// multiple of 16 channels, each output slice is one whole slice of one input, copied as two aligned float8 per
// pixel: CAT_SOURCE (generated) sets `src` to the row of the input slice feeding output slice `fs` (an if-chain
// over the inputs' first slices CAT_FIRSTi). Otherwise (CAT_LANES: ShuffleNet's 24 + 112 channels) a slice mixes
// inputs: CAT_LANE_SOURCE (an if-chain over the inputs' first channels CAT_CHi) sets each lane's source pointer
// once, then the pixels are copied lane by lane. Sizes, pitches, offsets and CAT_FIRSTi are int parameters
// (RUNTIME_SHAPE_ARGS): one binary for every concatenation of as many inputs (PoCL keeps 128 loaded
// kernels). The last slice of a channel count that is not a multiple of 16 writes only the real channels (the block
// tail stays as it is). Inputs and output may be padded along y, x and batch.
// Every input has the output's data type (f32 or f16 storage): loads through INPUT0's access macros, stores
// through OUTPUT's (f32: aligned float8 pointers; f16: vload_half8 / vstore_half8_rte, an exact round trip).

#define CAT_SLICES ((OUTPUT_FEATURE_NUM + 15) / 16)
#define CAT_LD8(p, i) INPUT0_LOAD8(p, (i) * 8)
#define CAT_ST8(p, i, v) OUTPUT_STORE8(p, (i) * 8, v)

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(concatenation_b_fs_yx_fsv16)(CAT_INPUTS_DECL, __global OUTPUT_TYPE* output RUNTIME_SHAPE_ARGS)
{
    const int x0 = (int)get_global_id(0) * CAT_BLOCK;
    const int y = get_global_id(1);
    const int fs = get_global_id(2) % CAT_SLICES;
    const int b = get_global_id(2) / CAT_SLICES;
    __global OUTPUT_TYPE* dst = output + OUTPUT_OFFSET + b * OUTPUT_BATCH_PITCH + fs * OUTPUT_FEATURE_PITCH
                                + y * OUTPUT_Y_PITCH + x0 * 16;
    const int n = OUTPUT_SIZE_X - x0 < CAT_BLOCK ? OUTPUT_SIZE_X - x0 : CAT_BLOCK;
#if CAT_LANES  // an input starts inside a slice: each lane has its own source (found once), copied pixel by pixel
    const int lanes = OUTPUT_FEATURE_NUM - fs * 16 < 16 ? OUTPUT_FEATURE_NUM - fs * 16 : 16;
    const __global INPUT0_TYPE* sp[16];
    for (int l = 0; l < lanes; ++l) {
        const int f = fs * 16 + l;
        CAT_LANE_SOURCE
    }
    for (int p = 0; p < n; ++p) {
        for (int l = 0; l < lanes; ++l)
            OUTPUT_STORE(dst, p * 16 + l, INPUT0_LOAD(sp[l], p * 16));
    }
#else
    const __global INPUT0_TYPE* src;
    CAT_SOURCE
    src += x0 * 16;
    if (OUTPUT_FEATURE_NUM % 16 != 0 && fs == CAT_SLICES - 1) {
        for (int p = 0; p < n; ++p) {
            for (int i = 0; i < OUTPUT_FEATURE_NUM % 16; ++i)
                OUTPUT_STORE(dst, p * 16 + i, INPUT0_LOAD(src, p * 16 + i));
        }
        return;
    }
    for (int p = 0; p < n; ++p) {
        CAT_ST8(dst + p * 16, 0, CAT_LD8(src + p * 16, 0));
        CAT_ST8(dst + p * 16, 1, CAT_LD8(src + p * 16, 1));
    }
#endif
}

#undef CAT_SLICES
#undef CAT_LD8
#undef CAT_ST8
