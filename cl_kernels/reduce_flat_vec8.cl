// Reduction of a whole unpadded bfyx tensor (any rank) to one value: gws = lws = (1); the work-item walks the
// buffer as float8 (INPUT0_LOAD8: aligned float8, or half8 converted), folds the 8 lanes, then the last
// REDUCE_COUNT % 8 elements. max / min propagate NaN as numpy does (a NaN operand wins and stays).
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

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(reduce_flat_vec8)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    float8 acc = (float8)(RF_INIT);
    for (int i = 0; i < REDUCE_COUNT / 8; ++i) {
        const float8 v = INPUT0_LOAD8(input, i * 8);
        acc = RF_OP8(acc, v);
    }
    float r = RF_OP(RF_OP(RF_OP(acc.s0, acc.s1), RF_OP(acc.s2, acc.s3)), RF_OP(RF_OP(acc.s4, acc.s5),
                                                                               RF_OP(acc.s6, acc.s7)));
    for (int i = (REDUCE_COUNT / 8) * 8; i < REDUCE_COUNT; ++i)
        r = RF_OP(r, INPUT0_LOAD(input, i));
#if defined(REDUCE_MODE_MEAN)
    r = r / (float)REDUCE_COUNT;
#endif
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(0, 0, 0, 0), r);
}
#undef RF_OP8
#undef RF_OP
#undef RF_INIT
#undef RF_MAX
#undef RF_MIN
#undef RF_SMAX
#undef RF_SMIN
