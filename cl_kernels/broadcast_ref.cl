// Reference broadcast: gws = (x, y, f * b) of the output; input dimension k reads IN_COORD_k (an output
// coordinate, or 0 where the input's size is 1 or the dimension is beyond its rank).
KERNEL(broadcast_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    ND_OUTPUT_COORDS
    OUTPUT_STORE(output, OUTPUT_IDX6(o0, o1, o2, o3, o4, o5), (OUTPUT_VAL_TYPE)INPUT0_LOAD(input, INPUT0_IDX6(
        IN_COORD_0, IN_COORD_1, IN_COORD_2, IN_COORD_3, IN_COORD_4, IN_COORD_5)));
}
