// Helpers shared by every cldnn_py kernel; prepended once to each batched program.
#ifndef CLDNN_PY_COMMON_CL
#define CLDNN_PY_COMMON_CL
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
// Conversion of an accumulator to the output type: saturating round-to-nearest-even for integers.
#define CONVERT_TO(type, v) CAT(convert_, CAT(type, _sat_rte))(v)
#if defined(cl_khr_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
// Emulated sub-group sum, for sub-group kernels built with SG_NATIVE 0 (a device without sub-groups, in tests): the
// sub-group is `width` consecutive work-items of dimension 0 (width divides the work-group), `scratch` holds one
// float per work-item of the group. Every work-item of the work-group must call it (it has barriers).
inline float cldnn_sg_sum_emulated(float v, __local float* scratch, uint width) {
    const uint lid = get_local_id(0);
    scratch[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint base = lid - lid % width;
    float s = 0.0f;
    for (uint i = 0; i < width; ++i)
        s += scratch[base + i];
    barrier(CLK_LOCAL_MEM_FENCE);
    return s;
}
#endif
