// Reference activation: gws = (x, y, f * b); works for every format through the GET_INDEX macros.
KERNEL(activation_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    const uint f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const uint b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    const float v = INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, y, x));
    float val = ACTIVATION(v);
    FUSED_OPS(val, b, f, y, x);  // activations fused after this one (a fake quantization's chain)
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, y, x), val);
}
