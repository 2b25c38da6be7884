// Channel shuffle: gws = (x, y, f * b) of the output; output channel f reads input channel
// (f % GROUP) * GROUP_SIZE + f / GROUP (GROUP_SIZE = C / GROUP). Any formats, through the GET_INDEX macros.
KERNEL(shuffle_channels_ref)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
#ifdef WG_OUT_OF_RANGE  // the GPU-tier twin (common/gpu_twin.py): gws rounded up to lws
    if (WG_OUT_OF_RANGE(get_global_id(0), get_global_id(1), get_global_id(2)))
        return;
#endif
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    const uint f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const uint b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    const uint src = (f % GROUP) * GROUP_SIZE + f / GROUP;
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, y, x),
                 (OUTPUT_VAL_TYPE)INPUT0_LOAD(input, INPUT0_GET_INDEX(b, src, y, x)));
}
