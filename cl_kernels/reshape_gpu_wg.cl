// GPU-tier reshape: gws = (X, Y, F * B) of the output rounded up to lws; work-items past the output return.
// Output coordinate -> linear row-major logical index -> input coordinate (input's logical sizes).
KERNEL(reshape_gpu_wg)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    WG_BFYX  // x, y, z from the global ids; past the tensor: return; f, b from z
    const uint linear = (z * OUTPUT_SIZE_Y + y) * OUTPUT_SIZE_X + x;
    const uint ix = linear % INPUT0_SIZE_X;
    const uint iy = (linear / INPUT0_SIZE_X) % INPUT0_SIZE_Y;
    const uint ifeat = (linear / (INPUT0_SIZE_X * INPUT0_SIZE_Y)) % INPUT0_FEATURE_NUM;
    const uint ib = linear / (INPUT0_SIZE_X * INPUT0_SIZE_Y * INPUT0_FEATURE_NUM);
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, y, x),
                 (OUTPUT_VAL_TYPE)INPUT0_LOAD(input, INPUT0_GET_INDEX(ib, ifeat, iy, ix)));
}
