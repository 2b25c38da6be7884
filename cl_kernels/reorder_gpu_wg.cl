// GPU-tier reorder: gws = (X, Y, F * B) of the output rounded up to lws; work-items past the output return.
// Any format and data type conversion through GET_INDEX and TO_OUTPUT.
KERNEL(reorder_gpu_wg)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    const uint z = get_global_id(2);
    if (WG_OUT_OF_RANGE(x, y, z))
        return;
    const uint f = z % OUTPUT_FEATURE_NUM;
    const uint b = z / OUTPUT_FEATURE_NUM;
    const INPUT0_TYPE v = input[INPUT0_GET_INDEX(b, f, y, x)];
    output[OUTPUT_GET_INDEX(b, f, y, x)] = TO_OUTPUT(v);
}
