// Vectorized eltwise for CPU OpenCL (PoCL): N inputs of the output's shape, no broadcasting, float8 accesses.
// ELTWISE_VEC8_RESULT(i) (generated) folds float8 number i of every input (EV_LD8) left to right with
// call-free operators (max / min written with comparisons that give fmax / fmin's NaN rules).
// Storage: each input and the output f32 or f16 (half storage), each its own; the arithmetic is float8 either way.
// EV_LD8(T, p, i) / EV_ST8(p, i, v): float8 number i of tensor T / of the output. With a half tensor anywhere
// (EV_ALL_F32 0) every tensor goes through its own access macros (NAME_LOAD8 / OUTPUT_STORE8: vload_half8 /
// vstore_half8_rte for half, aligned float8 pointers for f32), single elements through NAME_LOAD / OUTPUT_STORE.
// All f32 (EV_ALL_F32 1): float8-indexed pointers, the code the f32 kernel always had (NAME_LOAD8's element offset
// makes PoCL 3.0 unroll the flat variant's work-item loop differently: 2-3x the machine code).
// EV_FLAT 1: every tensor has the same unpadded layout, which holds no block tail: the buffers are one flat
// array of EV_COUNT floats. gws = (ceil(EV_COUNT / 8 / EV_BLOCK)), lws = (1); work-item g handles float8 numbers
// [g * EV_BLOCK, g * EV_BLOCK + EV_BLOCK); the EV_COUNT % 8 last floats go through a float8 staged in private
// memory by work-item 0 (lane by lane, no vload).
// EV_FLAT 0: b_fs_yx_fsv16 tensors, each with its own padding. gws = (ceil(X / EV_BLOCK), Y, slices * B),
// lws = (1, 1, 1): one work-item = EV_BLOCK pixels x 16 channels (two float8 per tensor). The last slice of a
// channel count that is not a multiple of 16 writes only the real channels.
// Fused ops: FUSED_OPS8(val, b, f, y, x) on each float8 (flat: activations and one-element operands only,
// coordinates unused).

// max / min: fmax / fmin's NaN rule (a NaN operand loses); prelu: a where a >= 0, slope * a elsewhere.
#ifndef ELTWISE_VEC8_HELPERS
#define ELTWISE_VEC8_HELPERS
static inline float8 eltwise_vec8_max(float8 a, float8 b) { return ((a >= b) | (b != b)) ? a : b; }
static inline float8 eltwise_vec8_min(float8 a, float8 b) { return ((a <= b) | (b != b)) ? a : b; }
static inline float8 eltwise_vec8_prelu(float8 a, float8 slope) { return (a >= (float8)(0.0f)) ? a : slope * a; }
#endif

#if EV_ALL_F32
#define EV_LD8(T, p, i) (((const __global float8*)(p))[i])
#define EV_ST8(p, i, v) (((__global float8*)(p))[i] = (v))
#else
#define EV_LD8(T, p, i) CAT(T, _LOAD8)(p, (long)(i) * 8)
#define EV_ST8(p, i, v) OUTPUT_STORE8(p, (long)(i) * 8, v)
#endif

#if EV_FLAT
__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(eltwise_vec8)(ELTWISE_INPUTS_DECL, __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const int v0 = (int)get_global_id(0) * EV_BLOCK;
    __attribute__((opencl_unroll_hint))
    for (int p = 0; p < EV_BLOCK; ++p) {
        const int i = v0 + p;
        if (i < EV_COUNT / 8) {
            float8 val = ELTWISE_VEC8_RESULT(i);
            FUSED_OPS8(val, 0, 0, 0, 0);
            EV_ST8(output, i, val);
        }
    }
#if EV_COUNT % 8
    if (get_global_id(0) == 0) {  // the last EV_COUNT % 8 floats: staged through private float8s
        union { float8 v; float s[8]; } t[ELTWISE_INPUT_NUM + 1];
        const int base = (EV_COUNT / 8) * 8;
        __attribute__((opencl_unroll_hint))
        for (int k = 0; k < 8; ++k) {
            ELTWISE_VEC8_STAGE(t, k, base + (k < EV_COUNT % 8 ? k : 0))
        }
        float8 val = ELTWISE_VEC8_STAGED_RESULT(t);
        FUSED_OPS8(val, 0, 0, 0, 0);
        t[ELTWISE_INPUT_NUM].v = val;
        for (int k = 0; k < EV_COUNT % 8; ++k) OUTPUT_STORE(output, base + k, t[ELTWISE_INPUT_NUM].s[k]);
    }
#endif
}
#else
#define EV_SLICES ((OUTPUT_FEATURE_NUM + 15) / 16)
__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(eltwise_vec8)(ELTWISE_INPUTS_DECL, __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
    const int x_start = (int)get_global_id(0) * EV_BLOCK;
    const int y = get_global_id(1);
    const int fs = get_global_id(2) % EV_SLICES;
    const int b = get_global_id(2) / EV_SLICES;
    const int x0 = x_start < OUTPUT_SIZE_X - EV_BLOCK ? x_start : OUTPUT_SIZE_X - EV_BLOCK;
    ELTWISE_VEC8_ROWS  // const __global INPUTN_TYPE* rowN = pixel x0 of slice fs, row y, batch b of input N
    __global OUTPUT_TYPE* out = output + OUTPUT_OFFSET + b * OUTPUT_BATCH_PITCH + fs * OUTPUT_FEATURE_PITCH
                                + y * OUTPUT_Y_PITCH + x0 * 16;
    __attribute__((opencl_unroll_hint))
    for (int p = 0; p < EV_BLOCK; ++p) {
        float8 lo = ELTWISE_VEC8_RESULT(2 * p);
        float8 hi = ELTWISE_VEC8_RESULT(2 * p + 1);
        FUSED_OPS8(lo, b, fs * 16, y, x0 + p);
        FUSED_OPS8(hi, b, fs * 16 + 8, y, x0 + p);
        FSV16_STORE_PIXEL_AS(OUTPUT, out + p * 16, lo, hi, fs == EV_SLICES - 1);
    }
}
#undef EV_SLICES
#endif

#undef EV_LD8
#undef EV_ST8
