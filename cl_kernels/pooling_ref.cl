// Reference pooling: gws = (OX, OY, OF * B). Window [o*STRIDE - PAD, o*STRIDE - PAD + POOL_SIZE) per axis.
// POOL_MODE 0: max over valid elements; 1: average, divisor = window clipped to [-PAD, SIZE + PAD_END)
// (ONNX count_include_pad=1); 2: average, divisor = number of valid elements.
KERNEL(pooling_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const int ox = get_global_id(0);
    const int oy = get_global_id(1);
    const int f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const int b = get_global_id(2) / OUTPUT_FEATURE_NUM;

    const int y0 = oy * STRIDE_Y - PAD_Y;
    const int x0 = ox * STRIDE_X - PAD_X;
    const int ys = max(y0, 0);
    const int ye = min(y0 + POOL_SIZE_Y, INPUT0_SIZE_Y);
    const int xs = max(x0, 0);
    const int xe = min(x0 + POOL_SIZE_X, INPUT0_SIZE_X);

#if POOL_MODE == 0
    float acc = -INFINITY;
#else
    float acc = 0.0f;
#endif
    for (int y = ys; y < ye; ++y) {
        for (int x = xs; x < xe; ++x) {
            const float v = input[INPUT0_GET_INDEX(b, f, y, x)];
#if POOL_MODE == 0
            acc = fmax(acc, v);
#else
            acc += v;
#endif
        }
    }
#if POOL_MODE == 1
    const int cy = min(y0 + POOL_SIZE_Y, INPUT0_SIZE_Y + PAD_END_Y) - y0;
    const int cx = min(x0 + POOL_SIZE_X, INPUT0_SIZE_X + PAD_END_X) - x0;
    acc /= (float)(cy * cx);
#elif POOL_MODE == 2
    acc /= (float)((ye - ys) * (xe - xs));
#endif
    output[OUTPUT_GET_INDEX(b, f, oy, ox)] = acc;
}
