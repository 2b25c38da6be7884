// Reference strided slice: gws = (x, y, f * b) of the output; input coordinate START_d + o_d * STEP_d.
KERNEL(strided_slice_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    ND_OUTPUT_COORDS
    OUTPUT_STORE(output, OUTPUT_IDX6(o0, o1, o2, o3, o4, o5), (OUTPUT_VAL_TYPE)INPUT0_LOAD(input, INPUT0_IDX6(
        START_0 + o0 * STEP_0, START_1 + o1 * STEP_1, START_2 + o2 * STEP_2,
        START_3 + o3 * STEP_3, START_4 + o4 * STEP_4, START_5 + o5 * STEP_5)));
}
