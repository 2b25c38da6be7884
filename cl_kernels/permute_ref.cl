// Reference permute: gws = (x, y, f * b) of the output. IN_B/IN_F/IN_Y/IN_X name the output coordinate
// (b, f, y or x) that indexes each input dimension, 0 for dimensions beyond the logical rank.
KERNEL(permute_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
#ifdef PERMUTE_ND
    // rank 5-6, unpadded bfyx: six output coordinates o0..o5; IN_d names the one indexing input dimension d
    ND_OUTPUT_COORDS
    OUTPUT_STORE(output, OUTPUT_IDX6(o0, o1, o2, o3, o4, o5),
                 (OUTPUT_VAL_TYPE)INPUT0_LOAD(input, INPUT0_IDX6(IN_0, IN_1, IN_2, IN_3, IN_4, IN_5)));
#else
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    const uint f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const uint b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, y, x),
                 (OUTPUT_VAL_TYPE)INPUT0_LOAD(input, INPUT0_GET_INDEX(IN_B, IN_F, IN_Y, IN_X)));
#endif
}
