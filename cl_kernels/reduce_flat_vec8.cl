// Reduction of the trailing axes of an unpadded bfyx tensor (any rank): gws = (REDUCE_ROWS), lws = (1); work-item g
// reduces the row of REDUCE_COUNT elements at g * REDUCE_COUNT (one row: the whole tensor to one value) as float8
// (RF_LD8: INPUT0_LOAD8, an aligned float8 or half8 converted; rows not 32-byte aligned, REDUCE_COUNT % 8 != 0 with
// several rows, as 8 adjacent scalar loads), folds the 8 lanes, then the last REDUCE_COUNT % 8 elements. max / min
// propagate NaN as numpy does (a NaN operand wins and stays). Several rows: output element g of an unpadded bfyx
// output; one row: the output's element 0 in any layout. An unpadded b_fs_yx_fsv16 input reduced to one value is
// one flat row when its channels fill whole slices; with RF_FSV16_TAIL (channels % 16) the last slice's padding
// lanes are skipped.
#define RF_MAX(a, b) ((((b) > (a)) | ((b) != (b))) ? (b) : (a))
#define RF_MIN(a, b) ((((b) < (a)) | ((b) != (b))) ? (b) : (a))
#define RF_SMAX(a, b) (((b) > (a) || (b) != (b)) ? (b) : (a))
#define RF_SMIN(a, b) (((b) < (a) || (b) != (b)) ? (b) : (a))
#if defined(REDUCE_MODE_MAX)
#define RF_OP8(a, b) RF_MAX(a, b)
#define RF_OP(a, b) RF_SMAX(a, b)
#define RF_INIT (-INFINITY)
#elif defined(REDUCE_MODE_MIN)
#define RF_OP8(a, b) RF_MIN(a, b)
#define RF_OP(a, b) RF_SMIN(a, b)
#define RF_INIT (INFINITY)
#else  // sum, mean
#define RF_OP8(a, b) ((a) + (b))
#define RF_OP(a, b) ((a) + (b))
#define RF_INIT (0.0f)
#endif

#if REDUCE_ROWS > 1 && REDUCE_COUNT % 8
#define RF_LD8(p, i) ((float8)(INPUT0_LOAD(p, (i)), INPUT0_LOAD(p, (i) + 1), INPUT0_LOAD(p, (i) + 2), \
                               INPUT0_LOAD(p, (i) + 3), INPUT0_LOAD(p, (i) + 4), INPUT0_LOAD(p, (i) + 5), \
                               INPUT0_LOAD(p, (i) + 6), INPUT0_LOAD(p, (i) + 7)))
#else
#define RF_LD8(p, i) INPUT0_LOAD8(p, (i))
#endif

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(reduce_flat_vec8)(const __global INPUT0_TYPE* input_all, __global OUTPUT_TYPE* output)
{
    const int g = (int)get_global_id(0);
    const __global INPUT0_TYPE* input = input_all + (size_t)g * REDUCE_COUNT;
    float8 acc = (float8)(RF_INIT);
#ifdef RF_FSV16_TAIL  // a whole b_fs_yx_fsv16 tensor whose last slice holds RF_FSV16_TAIL channels: the slices
    // before it as float8, then the valid lanes of the last one; the padding lanes are never read
    float r = RF_INIT;
    for (int b = 0; b < INPUT0_BATCH_NUM; ++b) {
        const __global INPUT0_TYPE* img = input_all + (size_t)b * RF_SLICES * RF_PIXELS * 16;
        for (int i = 0; i < (RF_SLICES - 1) * RF_PIXELS * 2; ++i)
            acc = RF_OP8(acc, RF_LD8(img, i * 8));
        const __global INPUT0_TYPE* last = img + (size_t)(RF_SLICES - 1) * RF_PIXELS * 16;
        for (int p = 0; p < RF_PIXELS; ++p)
            for (int c = 0; c < RF_FSV16_TAIL; ++c)
                r = RF_OP(r, INPUT0_LOAD(last, p * 16 + c));
    }
    r = RF_OP(r, RF_OP(RF_OP(RF_OP(acc.s0, acc.s1), RF_OP(acc.s2, acc.s3)), RF_OP(RF_OP(acc.s4, acc.s5),
                                                                                  RF_OP(acc.s6, acc.s7))));
#else
    for (int i = 0; i < REDUCE_COUNT / 8; ++i) {
        const float8 v = RF_LD8(input, i * 8);
        acc = RF_OP8(acc, v);
    }
    float r = RF_OP(RF_OP(RF_OP(acc.s0, acc.s1), RF_OP(acc.s2, acc.s3)), RF_OP(RF_OP(acc.s4, acc.s5),
                                                                               RF_OP(acc.s6, acc.s7)));
    for (int i = (REDUCE_COUNT / 8) * 8; i < REDUCE_COUNT; ++i)
        r = RF_OP(r, INPUT0_LOAD(input, i));
#endif
#if defined(REDUCE_MODE_MEAN)
    r = r / (float)REDUCE_COUNT;
#endif
#if REDUCE_ROWS > 1
    OUTPUT_STORE(output, g, r);
#else
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(0, 0, 0, 0), r);
#endif
}
#undef RF_LD8
#undef RF_OP8
#undef RF_OP
#undef RF_INIT
#undef RF_MAX
#undef RF_MIN
#undef RF_SMAX
#undef RF_SMIN
