// Reference gather: gws = (x, y, f * b) of the output. The index is read at INDEX_COORD_*, made non-negative
// (+ AXIS_SIZE) and clamped into range; the data element is read at DATA_COORD_* (idx on the gather axis).
KERNEL(gather_ref)(const __global INPUT0_TYPE* data, const __global INPUT1_TYPE* indices,
                   __global OUTPUT_TYPE* output)
{
#ifdef WG_OUT_OF_RANGE  // the GPU-tier twin (common/gpu_twin.py): gws rounded up to lws
    if (WG_OUT_OF_RANGE(get_global_id(0), get_global_id(1), get_global_id(2)))
        return;
#endif
    ND_OUTPUT_COORDS
    int idx = indices[INPUT1_IDX6(INDEX_COORD_0, INDEX_COORD_1, INDEX_COORD_2, INDEX_COORD_3, INDEX_COORD_4,
                                  INDEX_COORD_5)];
    if (idx < 0)
        idx += AXIS_SIZE;
    idx = clamp(idx, 0, AXIS_SIZE - 1);
    OUTPUT_STORE(output, OUTPUT_IDX6(o0, o1, o2, o3, o4, o5), (OUTPUT_VAL_TYPE)INPUT0_LOAD(data, INPUT0_IDX6(
        DATA_COORD_0, DATA_COORD_1, DATA_COORD_2, DATA_COORD_3, DATA_COORD_4, DATA_COORD_5)));
}
