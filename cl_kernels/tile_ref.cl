// Reference tile: gws = (x, y, f * b) of the output; input coordinate o_d mod n_d per dimension.
KERNEL(tile_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    ND_OUTPUT_COORDS
    OUTPUT_STORE(output, OUTPUT_IDX6(o0, o1, o2, o3, o4, o5), (OUTPUT_VAL_TYPE)INPUT0_LOAD(input, INPUT0_IDX6(
        o0 % INPUT0_DIM0, o1 % INPUT0_DIM1, o2 % INPUT0_DIM2, o3 % INPUT0_DIM3, o4 % INPUT0_DIM4, o5 % INPUT0_DIM5)));
}
