// Gather of contiguous rows for CPU OpenCL (PoCL): data and output unpadded bfyx, so gathering along an axis copies
// rows of GR_INNER elements (the product of the axes after it). gws = (GR_OUTER * GR_NIDX, chunks), lws = (1, 1):
// work-item (g, c) copies chunk c (GR_CHUNK elements) of output row g = o * GR_NIDX + j from data row
// o * GR_AXIS + idx, idx = indices[j] made non-negative (+ GR_AXIS) and clamped into range (gather_ref's rule).
#define GR_LD8(p) ((GR_T8)((p)[0], (p)[1], (p)[2], (p)[3], (p)[4], (p)[5], (p)[6], (p)[7]))
#define GR_ST8(p, v) { const GR_T8 t_ = (v); (p)[0] = t_.s0; (p)[1] = t_.s1; (p)[2] = t_.s2; (p)[3] = t_.s3; \
                       (p)[4] = t_.s4; (p)[5] = t_.s5; (p)[6] = t_.s6; (p)[7] = t_.s7; }

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(gather_rows)(const __global INPUT0_TYPE* data, const __global INPUT1_TYPE* indices,
                    __global OUTPUT_TYPE* output)
{
    const size_t g = get_global_id(0);
    const size_t o = g / GR_NIDX;
    int idx = indices[INPUT1_OFFSET + g % GR_NIDX];
    if (idx < 0)
        idx += GR_AXIS;
    idx = clamp(idx, 0, GR_AXIS - 1);
    const __global INPUT0_TYPE* x = data + INPUT0_OFFSET + (o * GR_AXIS + idx) * (size_t)GR_INNER;
    __global OUTPUT_TYPE* y = output + OUTPUT_OFFSET + g * (size_t)GR_INNER;
    const int c0 = (int)get_global_id(1) * GR_CHUNK;
    const int end = min(c0 + GR_CHUNK, GR_INNER);
    int i = c0;
    for (; i + 8 <= end; i += 8)
        GR_ST8(y + i, GR_LD8(x + i))
    for (; i < end; ++i)
        y[i] = x[i];
}
#undef GR_LD8
#undef GR_ST8
