// GPU pooling. POOL_GLOBAL 0: gws = (OX, OY rounded up to lws, OF * B), lws = (lx, ly, 1); one work-item per
// output element, window taps o*STRIDE - PAD + t*DILATION (t in [0, POOL_SIZE)) per axis; POOL_MODE 0 max over
// valid taps, 1 average over the taps inside [-PAD, SIZE + PAD_END), 2 average over the valid taps.
// POOL_GLOBAL 1: gws = (POOL_LWS, OF * B), lws = (POOL_LWS, 1); one work-group per (b, f) plane, work-items stride
// over the plane, then a __local tree reduction (POOL_LWS a power of two).
#if POOL_GLOBAL
KERNEL(pooling_gpu_wg)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    __local float part[POOL_LWS];
    const int lid = get_local_id(0);
    const int f = get_global_id(1) % OUTPUT_FEATURE_NUM;
    const int b = get_global_id(1) / OUTPUT_FEATURE_NUM;
#if POOL_MODE == 0
    float acc = -INFINITY;
#else
    float acc = 0.0f;
#endif
    for (int i = lid; i < INPUT0_SIZE_Y * INPUT0_SIZE_X; i += POOL_LWS) {
        const float v = INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, i / INPUT0_SIZE_X, i % INPUT0_SIZE_X));
#if POOL_MODE == 0
        acc = fmax(acc, v);
#else
        acc += v;
#endif
    }
    part[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = POOL_LWS / 2; s > 0; s >>= 1) {
        if (lid < s) {
#if POOL_MODE == 0
            part[lid] = fmax(part[lid], part[lid + s]);
#else
            part[lid] += part[lid + s];
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        float val = part[0];
#if POOL_MODE != 0
        val /= (float)(INPUT0_SIZE_Y * INPUT0_SIZE_X);
#endif
        FUSED_OPS(val, b, f, 0, 0);
        OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, 0, 0), val);
    }
}
#else
KERNEL(pooling_gpu_wg)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const int ox = get_global_id(0);
    const int oy = get_global_id(1);
    if (ox >= OUTPUT_SIZE_X || oy >= OUTPUT_SIZE_Y)
        return;
    const int f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const int b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    const int y0 = oy * STRIDE_Y - PAD_Y;
    const int x0 = ox * STRIDE_X - PAD_X;
#if POOL_MODE == 0
    float acc = -INFINITY;
#else
    float acc = 0.0f;
#endif
    int ny = 0;  // valid rows
    int my = 0;  // rows inside the padded extent
    for (int ky = 0; ky < POOL_SIZE_Y; ++ky) {
        const int y = y0 + ky * DILATION_Y;
        my += (y < INPUT0_SIZE_Y + PAD_END_Y);
        if (y < 0 || y >= INPUT0_SIZE_Y)
            continue;
        ++ny;
        for (int kx = 0; kx < POOL_SIZE_X; ++kx) {
            const int x = x0 + kx * DILATION_X;
            if (x < 0 || x >= INPUT0_SIZE_X)
                continue;
            const float v = INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, y, x));
#if POOL_MODE == 0
            acc = fmax(acc, v);
#else
            acc += v;
#endif
        }
    }
#if POOL_MODE != 0
    int nx = 0;
    int mx = 0;
    for (int kx = 0; kx < POOL_SIZE_X; ++kx) {
        const int x = x0 + kx * DILATION_X;
        mx += (x < INPUT0_SIZE_X + PAD_END_X);
        nx += (x >= 0 && x < INPUT0_SIZE_X);
    }
#endif
#if POOL_MODE == 1
    acc /= (float)(my * mx);
#elif POOL_MODE == 2
    acc /= (float)(ny * nx);
#endif
    FUSED_OPS(acc, b, f, oy, ox);
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, oy, ox), acc);
}
#endif
