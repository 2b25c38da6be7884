// DynamicQuantizeLinear's uint8 parameters of a whole tensor: gws = (1), lws = (1). One work-item takes the min and
// max of every element (NaN propagates: a NaN operand wins, as numpy), then writes output[0..3] = (s, z, -z,
// 255 - z) with m = min(0, min x), M = max(0, max x), s = (M - m) / 255 (1 when M = m = 0, as onnxruntime),
// z = clamp(rint((0 - m) / s), 0, 255) (0 when s is NaN: a NaN in x makes s NaN). Reads: DQP_FLAT (the buffer holds exactly the elements: float8 loads, then the tail),
// DQP_FSV16_TAIL (unpadded b_fs_yx_fsv16 whose last slice holds DQP_FSV16_TAIL channels: float8 loads of the
// whole slices, the valid lanes of the last), otherwise INPUT0_GET_INDEX per element (padded or other layouts).
#define DQP_MAX8(a, b) ((((b) > (a)) | ((b) != (b))) ? (b) : (a))
#define DQP_MIN8(a, b) ((((b) < (a)) | ((b) != (b))) ? (b) : (a))
#define DQP_MAX(a, b) (((b) > (a) || (b) != (b)) ? (b) : (a))
#define DQP_MIN(a, b) (((b) < (a) || (b) != (b)) ? (b) : (a))
#define DQP_TAKE(v) do { const float v_ = (v); lo = DQP_MIN(lo, v_); hi = DQP_MAX(hi, v_); } while (0)

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(dynamic_quant_params)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    float lo = 0.0f, hi = 0.0f;  // min(0, min x) and max(0, max x) directly
#if defined(DQP_FLAT) || defined(DQP_FSV16_TAIL)
    float8 lo8 = (float8)(0.0f), hi8 = (float8)(0.0f);
#endif
#if defined(DQP_FLAT)
    for (int i = 0; i < DQP_COUNT / 8; ++i) {
        const float8 v = INPUT0_LOAD8(input, i * 8);
        lo8 = DQP_MIN8(lo8, v);
        hi8 = DQP_MAX8(hi8, v);
    }
    for (int i = (DQP_COUNT / 8) * 8; i < DQP_COUNT; ++i)
        DQP_TAKE(INPUT0_LOAD(input, i));
#elif defined(DQP_FSV16_TAIL)
    for (int b = 0; b < INPUT0_BATCH_NUM; ++b) {
        const __global INPUT0_TYPE* img = input + (size_t)b * DQP_SLICES * DQP_PIXELS * 16;
        for (int i = 0; i < (DQP_SLICES - 1) * DQP_PIXELS * 2; ++i) {
            const float8 v = INPUT0_LOAD8(img, i * 8);
            lo8 = DQP_MIN8(lo8, v);
            hi8 = DQP_MAX8(hi8, v);
        }
        const __global INPUT0_TYPE* last = img + (size_t)(DQP_SLICES - 1) * DQP_PIXELS * 16;
        for (int p = 0; p < DQP_PIXELS; ++p)
            for (int c = 0; c < DQP_FSV16_TAIL; ++c)
                DQP_TAKE(INPUT0_LOAD(last, p * 16 + c));
    }
#else
    for (int b = 0; b < INPUT0_BATCH_NUM; ++b)
        for (int f = 0; f < INPUT0_FEATURE_NUM; ++f)
            for (int y = 0; y < INPUT0_SIZE_Y; ++y)
                for (int x = 0; x < INPUT0_SIZE_X; ++x)
                    DQP_TAKE(INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, y, x)));
#endif
#if defined(DQP_FLAT) || defined(DQP_FSV16_TAIL)
    DQP_TAKE(DQP_MIN(DQP_MIN(DQP_MIN(lo8.s0, lo8.s1), DQP_MIN(lo8.s2, lo8.s3)),
                     DQP_MIN(DQP_MIN(lo8.s4, lo8.s5), DQP_MIN(lo8.s6, lo8.s7))));
    DQP_TAKE(DQP_MAX(DQP_MAX(DQP_MAX(hi8.s0, hi8.s1), DQP_MAX(hi8.s2, hi8.s3)),
                     DQP_MAX(DQP_MAX(hi8.s4, hi8.s5), DQP_MAX(hi8.s6, hi8.s7))));
#endif
    const float s = hi - lo == 0.0f ? 1.0f : (hi - lo) / 255.0f;  // onnxruntime: scale 1 for an all-zero tensor
    const float zf = (0.0f - lo) / s;
    float z = CLDNN_RINT(zf);  // round half to even, then saturate; 0 when s is 0 or NaN (zf NaN or inf)
    z = z > 0.0f ? (z < 255.0f ? z : 255.0f) : 0.0f;
    if (!(s > 0.0f)) z = 0.0f;
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(0, 0, 0, 0), s);
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(0, 0, 0, 1), z);
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(0, 0, 0, 2), -z);
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(0, 0, 0, 3), 255.0f - z);
}

#undef DQP_MAX8
#undef DQP_MIN8
#undef DQP_MAX
#undef DQP_MIN
#undef DQP_TAKE
