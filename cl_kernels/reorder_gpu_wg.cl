// GPU-tier reorder: gws = (X, Y, F * B) of the output rounded up to lws; work-items past the output return.
// Any format and data type conversion through GET_INDEX and TO_OUTPUT.
KERNEL(reorder_gpu_wg)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    WG_BFYX  // x, y, z from the global ids; past the tensor: return; f, b from z
    const INPUT0_VAL_TYPE v = INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, y, x));
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, y, x), TO_OUTPUT(v));
}
