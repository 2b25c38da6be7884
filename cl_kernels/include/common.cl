// Helpers shared by every cldnn_py kernel; prepended once to each batched program.
#ifndef CLDNN_PY_COMMON_CL
#define CLDNN_PY_COMMON_CL
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
// Conversion of an accumulator to the output type: saturating round-to-nearest-even for integers.
#define CONVERT_TO(type, v) CAT(convert_, CAT(type, _sat_rte))(v)
// One pixel's 16 channels (lo: 0-7, hi: 8-15) into a b_fs_yx_fsv16 output at p: two aligned float8 stores, or, when
// `tail` holds (the last slice of an OUTPUT_FEATURE_NUM that is not a multiple of 16), only the real channels, so
// the block tail stays as it is. Uses the including kernel's OUTPUT_FEATURE_NUM.
#define FSV16_STORE_PIXEL(p, lo, hi, tail) do { \
        if ((OUTPUT_FEATURE_NUM % 16 != 0) && (tail)) { \
            union { float8 v[2]; float s[16]; } st_; \
            st_.v[0] = (lo); \
            st_.v[1] = (hi); \
            __attribute__((opencl_unroll_hint)) \
            for (int i_ = 0; i_ < OUTPUT_FEATURE_NUM % 16; ++i_) (p)[i_] = st_.s[i_]; \
        } else { \
            ((__global float8*)(p))[0] = (lo); \
            ((__global float8*)(p))[1] = (hi); \
        } \
    } while (0)
// FSV16_STORE_PIXEL through tensor T's access macros (T_STORE8 / T_STORE of the jitter, T = OUTPUT ...): the same
// float8 pointer stores for float storage, vstore_half8_rte / vstore_half_rte for half storage (f16: issue 18).
#define FSV16_STORE_PIXEL_AS(T, p, lo, hi, tail) do { \
        if ((OUTPUT_FEATURE_NUM % 16 != 0) && (tail)) { \
            union { float8 v[2]; float s[16]; } st_; \
            st_.v[0] = (lo); \
            st_.v[1] = (hi); \
            __attribute__((opencl_unroll_hint)) \
            for (int i_ = 0; i_ < OUTPUT_FEATURE_NUM % 16; ++i_) CAT(T, _STORE)((p), i_, st_.s[i_]); \
        } else { \
            CAT(T, _STORE8)((p), 0, (lo)); \
            CAT(T, _STORE8)((p), 8, (hi)); \
        } \
    } while (0)
// One pixel's 16 channels (lo: 0-7, hi: 8-15) into a plain (bfyx) output whose channel 0 of the slice is at p and
// whose channels are `lp` apart: only the first `n` (the slice's real channels). For narrow outputs (a segmentation
// head's 1-8 channels), where b_fs_yx_fsv16 would write 16 lanes per pixel.
#define PLAIN_STORE_PIXEL(p, lo, hi, n, lp) do { \
        union { float8 v[2]; float s[16]; } st_; \
        st_.v[0] = (lo); \
        st_.v[1] = (hi); \
        __attribute__((opencl_unroll_hint)) \
        for (int i_ = 0; i_ < 16; ++i_) \
            if (i_ < (n)) (p)[i_ * (lp)] = st_.s[i_]; \
    } while (0)
// The logistic function, for the recurrent kernels' gates (LSTM, GRU).
static inline float cldnn_sigmoid(float x) { return 1.0f / (1.0f + exp(-x)); }
static inline float8 cldnn_sigmoid8(float8 x) { return 1.0f / (1.0f + exp(-x)); }
#if defined(cl_khr_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
// Emulated sub-group sum, for sub-group kernels built with SG_NATIVE 0 (a device without sub-groups, in tests): the
// sub-group is `width` consecutive work-items of dimension 0 (width divides the work-group), `scratch` holds one
// float per work-item of the group. Every work-item of the work-group must call it (it has barriers).
static inline float cldnn_sg_sum_emulated(float v, __local float* scratch, uint width) {
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
// CLDNN_RINT(x), CLDNN_FMIN(a, b), CLDNN_FMAX(a, b): rint (round half to even), fmin and fmax (a NaN operand
// ignored) of floats, as the activation table's formulas use them. On the pip PoCL these are library calls
// (measured per element of an activation_ref: round 7.2 ns, clamp 8.4 ns, against 0.5 ns for a product); where the
// compiler targets SSE4.1 (x86) the clang builtins are LLVM's rint / minnum / maxnum, a few instructions inlined.
// Elsewhere (GPUs, Oclgrind) the OpenCL builtins, native there.
#if defined(__SSE4_1__) && defined(__clang__)
#define CLDNN_RINT(x) __builtin_rintf(x)
#define CLDNN_FMIN(a, b) __builtin_fminf((a), (b))
#define CLDNN_FMAX(a, b) __builtin_fmaxf((a), (b))
#else
#define CLDNN_RINT(x) rint(x)
#define CLDNN_FMIN(a, b) fmin((a), (b))
#define CLDNN_FMAX(a, b) fmax((a), (b))
#endif
// Half access for inner loops and register-tile epilogues: cldnn_load_half (element i of p),
// cldnn_load_half8_aligned (the 8 halves at p) as float, cldnn_store_half8_aligned (v rounded to nearest even into
// the 8 halves at p); p 16-byte aligned for the half8 forms. On the pip PoCL vload_half(8) / vstore_half8_rte are
// library calls (not inlined) that spill every vector register around them, so a loop of them loses what half
// storage saves; where the compiler targets F16C (x86) these are the conversion instructions themselves, inlined.
// Elsewhere (GPUs, Oclgrind) the vload_half / vstore_half builtins, native there.
#if defined(__F16C__) && defined(__AVX__)
static inline float cldnn_load_half(const __global half* p, int i) {
    return as_float4(__builtin_ia32_vcvtph2ps((short8)(((const __global short*)p)[i], 0, 0, 0, 0, 0, 0, 0))).s0;
}
static inline float8 cldnn_load_half8_aligned(const __global half* p) {
    return __builtin_ia32_vcvtph2ps256(*(const __global short8*)p);
}
static inline void cldnn_store_half8_aligned(__global half* p, float8 v) {
    *(__global short8*)p = __builtin_ia32_vcvtps2ph256(v, 0);  // imm 0: round to nearest even
}
// Any alignment (the jitter's NAME_LOAD8 / NAME_STORE8 / NAME_STORE for half; measured on PoCL, 16 K work-items
// of 64 half8 loads each: 1.5 ms against 7.4 ms with vload_half8, scalar 0.95 against 3.3 ms).
typedef short cldnn_short8_u __attribute__((ext_vector_type(8), aligned(2)));
static inline float8 cldnn_load_half8(const __global half* p) {
    return __builtin_ia32_vcvtph2ps256(*(const __global cldnn_short8_u*)p);
}
static inline void cldnn_store_half8(__global half* p, float8 v) {
    *(__global cldnn_short8_u*)p = __builtin_ia32_vcvtps2ph256(v, 0);
}
static inline void cldnn_store_half(__global half* p, int i, float v) {
    const short8 t = as_short8(__builtin_ia32_vcvtps2ph((float4)(v, 0.0f, 0.0f, 0.0f), 0));
    ((__global short*)p)[i] = t.s0;
}
#else
static inline float cldnn_load_half(const __global half* p, int i) {
    return vload_half(i, p);
}
static inline float8 cldnn_load_half8_aligned(const __global half* p) {
    return vload_half8(0, p);
}
static inline void cldnn_store_half8_aligned(__global half* p, float8 v) {
    vstore_half8_rte(v, 0, p);
}
static inline float8 cldnn_load_half8(const __global half* p) {
    return vload_half8(0, p);
}
static inline void cldnn_store_half8(__global half* p, float8 v) {
    vstore_half8_rte(v, 0, p);
}
static inline void cldnn_store_half(__global half* p, int i, float v) {
    vstore_half_rte(v, i, p);
}
#endif
#endif
