// Reference reshape: gws = (x, y, f * b) of the output. Output coordinate -> linear row-major logical index ->
// input coordinate (input's logical sizes), so the input may be in any format and padded.
KERNEL(reshape_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    const uint f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const uint b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    const uint linear = ((b * OUTPUT_FEATURE_NUM + f) * OUTPUT_SIZE_Y + y) * OUTPUT_SIZE_X + x;
    const uint ix = linear % INPUT0_SIZE_X;
    const uint iy = (linear / INPUT0_SIZE_X) % INPUT0_SIZE_Y;
    const uint ifeat = (linear / (INPUT0_SIZE_X * INPUT0_SIZE_Y)) % INPUT0_FEATURE_NUM;
    const uint ib = linear / (INPUT0_SIZE_X * INPUT0_SIZE_Y * INPUT0_FEATURE_NUM);
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, y, x),
                 (OUTPUT_VAL_TYPE)INPUT0_LOAD(input, INPUT0_GET_INDEX(ib, ifeat, iy, ix)));
}
