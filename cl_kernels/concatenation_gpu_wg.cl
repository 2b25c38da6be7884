// GPU-tier concatenation, one enqueue per input: gws = (X, Y, F * B) of this input (INPUT0) rounded up to lws;
// work-items past the input return. Each element goes to the output at its coordinate plus CONCAT_OFFSET_*.
KERNEL(concatenation_gpu_wg)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    const uint z = get_global_id(2);
    if (WG_OUT_OF_RANGE(x, y, z))
        return;
    const uint f = z % INPUT0_FEATURE_NUM;
    const uint b = z / INPUT0_FEATURE_NUM;
    output[OUTPUT_GET_INDEX(b + CONCAT_OFFSET_B, f + CONCAT_OFFSET_F, y + CONCAT_OFFSET_Y, x + CONCAT_OFFSET_X)] =
        input[INPUT0_GET_INDEX(b, f, y, x)];
}
