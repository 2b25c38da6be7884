// GPU activation: gws = (count rounded up to lws,), lws = (256,); one work-item per element, x fastest.
KERNEL(activation_gpu_wg)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const int i = get_global_id(0);
    if (i >= ACT_COUNT)
        return;
    const int x = i % OUTPUT_SIZE_X;
    const int t = i / OUTPUT_SIZE_X;
    const int y = t % OUTPUT_SIZE_Y;
    const int fb = t / OUTPUT_SIZE_Y;
    const int f = fb % OUTPUT_FEATURE_NUM;
    const int b = fb / OUTPUT_FEATURE_NUM;
    const float v = INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, y, x));
    float val = ACTIVATION(v);
    FUSED_OPS(val, b, f, y, x);  // activations fused after this one (a fake quantization's chain)
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, y, x), val);
}
