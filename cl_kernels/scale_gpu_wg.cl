// GPU-tier scale: gws = (X, Y, F * B) of the output rounded up to lws; work-items past the output return.
// y = x * scale + bias, scale and bias read through broadcast indices, then the fused ops.
KERNEL(scale_gpu_wg)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* scale,
#if BIAS_TERM
                     const __global INPUT2_TYPE* bias,
#endif
                     __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    WG_BFYX  // x, y, z from the global ids; past the tensor: return; f, b from z
    float v = (float)INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, y, x))
              * (float)INPUT1_LOAD(scale, SCALE_INDEX(b, f, y, x));
#if BIAS_TERM
    v += (float)INPUT2_LOAD(bias, BIAS_INDEX(b, f, y, x));
#endif
    FUSED_OPS(v, b, f, y, x);
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, y, x), v);
}
