// Reference crop: gws = (x, y, f * b) of the output; reads the input at the output coordinate + OFFSET_*.
KERNEL(crop_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    const uint f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const uint b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    const uint src = INPUT0_GET_INDEX(b + OFFSET_B, f + OFFSET_F, y + OFFSET_Y, x + OFFSET_X);
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, y, x), (OUTPUT_VAL_TYPE)INPUT0_LOAD(input, src));
}
