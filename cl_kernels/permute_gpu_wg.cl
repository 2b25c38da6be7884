// GPU-tier permute: gws = (X, Y, F * B) of the output rounded up to lws; work-items past the output return.
// IN_B/IN_F/IN_Y/IN_X name the output coordinate (b, f, y or x) that indexes each input dimension.
KERNEL(permute_gpu_wg)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    const uint z = get_global_id(2);
    if (WG_OUT_OF_RANGE(x, y, z))
        return;
    const uint f = z % OUTPUT_FEATURE_NUM;
    const uint b = z / OUTPUT_FEATURE_NUM;
    output[OUTPUT_GET_INDEX(b, f, y, x)] = (OUTPUT_TYPE)input[INPUT0_GET_INDEX(IN_B, IN_F, IN_Y, IN_X)];
}
