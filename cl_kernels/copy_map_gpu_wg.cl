// GPU-tier copy with a coordinate map (crop_gpu_wg, tile_gpu_wg, broadcast_gpu_wg): gws = (X, Y, F * B) of the
// output rounded up to lws; work-items past the output return. Output (b, f, y, x) reads input
// (IN_B, IN_F, IN_Y, IN_X), expressions of the output coordinate defined by the kernel.
KERNEL(copy_map_gpu_wg)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    WG_BFYX  // x, y, z from the global ids; past the tensor: return; f, b from z
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, y, x),
                 (OUTPUT_VAL_TYPE)INPUT0_LOAD(input, INPUT0_GET_INDEX(IN_B, IN_F, IN_Y, IN_X)));
}
