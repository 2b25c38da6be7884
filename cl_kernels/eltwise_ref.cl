// Reference eltwise: gws = (x, y, f * b) of the output. The jit generates the input parameters
// (ELTWISE_INPUTS_DECL), the broadcast index of every input and the folded expression ELTWISE_RESULT.
KERNEL(eltwise_ref)(ELTWISE_INPUTS_DECL, __global OUTPUT_TYPE* output)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const int b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    output[OUTPUT_GET_INDEX(b, f, y, x)] = ELTWISE_RESULT(b, f, y, x);
}
