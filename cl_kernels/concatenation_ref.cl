// Reference concatenation, one enqueue per input: gws = (x, y, f * b) of this input (INPUT0). Each element is
// copied to the output at its coordinate plus CONCAT_OFFSET_* (non-zero only along the concatenation axis).
KERNEL(concatenation_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int f = get_global_id(2) % INPUT0_FEATURE_NUM;
    const int b = get_global_id(2) / INPUT0_FEATURE_NUM;
    const INPUT0_VAL_TYPE v = INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, y, x));
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b + CONCAT_OFFSET_B, f + CONCAT_OFFSET_F, y + CONCAT_OFFSET_Y,
                                          x + CONCAT_OFFSET_X), v);
}
