// Reference scale: gws = (x, y, f * b). y = x * scale + bias, scale and bias read through broadcast indices.
KERNEL(scale_ref)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* scale,
#if BIAS_TERM
                  const __global INPUT2_TYPE* bias,
#endif
                  __global OUTPUT_TYPE* output)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const int b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    float v = (float)INPUT0_LOAD(input, INPUT0_GET_INDEX(b, f, y, x))
              * (float)INPUT1_LOAD(scale, SCALE_INDEX(b, f, y, x));
#if BIAS_TERM
    v += (float)INPUT2_LOAD(bias, BIAS_INDEX(b, f, y, x));
#endif
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, y, x), v);
}
