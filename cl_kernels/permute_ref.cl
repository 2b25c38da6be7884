// Reference permute: gws = (x, y, f * b) of the output. IN_B/IN_F/IN_Y/IN_X name the output coordinate
// (b, f, y or x) that indexes each input dimension, 0 for dimensions beyond the logical rank.
KERNEL(permute_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    const uint f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const uint b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    output[OUTPUT_GET_INDEX(b, f, y, x)] = (OUTPUT_TYPE)input[INPUT0_GET_INDEX(IN_B, IN_F, IN_Y, IN_X)];
}
