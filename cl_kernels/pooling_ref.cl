// Reference pooling: gws = (OX, OY, OF * B). Window taps o*STRIDE - PAD + t*DILATION, t in [0, POOL_SIZE), per axis.
// POOL_MODE 0: max over valid taps; 1: average, divisor = taps inside [-PAD, SIZE + PAD_END)
// (ONNX count_include_pad=1); 2: average, divisor = number of valid taps.
KERNEL(pooling_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const int ox = get_global_id(0);
    const int oy = get_global_id(1);
    const int f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const int b = get_global_id(2) / OUTPUT_FEATURE_NUM;

    const int y0 = oy * STRIDE_Y - PAD_Y;
    const int x0 = ox * STRIDE_X - PAD_X;

#if POOL_MODE == 0
    float acc = -INFINITY;
#else
    float acc = 0.0f;
#endif
    int vy = 0;  // valid taps along y
    int cy = 0;  // taps inside the padded extent along y
    for (int ky = 0; ky < POOL_SIZE_Y; ++ky) {
        const int y = y0 + ky * DILATION_Y;
        cy += (y < INPUT0_SIZE_Y + PAD_END_Y);
        if (y < 0 || y >= INPUT0_SIZE_Y) continue;
        ++vy;
        for (int kx = 0; kx < POOL_SIZE_X; ++kx) {
            const int x = x0 + kx * DILATION_X;
            if (x < 0 || x >= INPUT0_SIZE_X) continue;
            const float v = INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, y, x));
#if POOL_MODE == 0
            acc = fmax(acc, v);
#else
            acc += v;
#endif
        }
    }
#if POOL_MODE != 0
    int vx = 0;
    int cx = 0;
    for (int kx = 0; kx < POOL_SIZE_X; ++kx) {
        const int x = x0 + kx * DILATION_X;
        cx += (x < INPUT0_SIZE_X + PAD_END_X);
        vx += (x >= 0 && x < INPUT0_SIZE_X);
    }
#endif
#if POOL_MODE == 1
    acc /= (float)(cy * cx);
#elif POOL_MODE == 2
    acc /= (float)(vy * vx);
#endif
    FUSED_OPS(acc, b, f, oy, ox);
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, oy, ox), acc);
}
