// GPU-tier concatenation, one enqueue per input: gws = (X, Y, F * B) of this input (INPUT0) rounded up to lws;
// work-items past the input return. Each element goes to the output at its coordinate plus CONCAT_OFFSET_*.
KERNEL(concatenation_gpu_wg)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    WG_BFYX  // x, y, z from the global ids; past the tensor: return; f, b from z
    const INPUT0_VAL_TYPE v = INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, y, x));
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b + CONCAT_OFFSET_B, f + CONCAT_OFFSET_F, y + CONCAT_OFFSET_Y,
                                          x + CONCAT_OFFSET_X), v);
}
