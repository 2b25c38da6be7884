// Reference reorder: gws = (x, y, f * b); format and data type conversion through GET_INDEX and TO_OUTPUT.
KERNEL(reorder_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    const uint f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const uint b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    const INPUT0_VAL_TYPE v = INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, y, x));
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, y, x), TO_OUTPUT(v));
}
