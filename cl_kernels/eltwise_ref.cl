// Reference eltwise: gws = (x, y, f * b) of the output. The jit generates the input parameters
// (ELTWISE_INPUTS_DECL), the broadcast index of every input and the folded expression ELTWISE_RESULT.
#ifndef ELTWISE_REF_HELPERS_CL
#define ELTWISE_REF_HELPERS_CL
// prelu step: v where v >= 0, slope * v elsewhere (NaN stays NaN).
static inline float eltwise_prelu_float(float v, float slope) { return v >= 0.0f ? v : slope * v; }
static inline int eltwise_prelu_int(int v, int slope) { return v >= 0 ? v : slope * v; }
// Integer division truncating toward zero; x / 0 gives 0 and INT_MIN / -1 wraps (a hardware divide would trap).
static inline int eltwise_idiv(int a, int b) { return b == 0 ? 0 : (b == -1 ? -a : a / b); }
// Selects for ONNX Where: v where the condition c is non-zero (mask) or zero (mask_not), else 0.
static inline int eltwise_imask(int v, int c) { return c != 0 ? v : 0; }
static inline int eltwise_imask_not(int v, int c) { return c != 0 ? 0 : v; }
// Integer remainders: the dividend's sign (C %, ONNX Mod fmod=1) or the divisor's (Python %, fmod=0); x mod 0
// gives 0 and x mod -1 gives 0 (INT_MIN % -1 would trap).
static inline int eltwise_ifmod(int a, int b) { return (b == 0 || b == -1) ? 0 : a % b; }
static inline int eltwise_imod(int a, int b)
{
    const int r = eltwise_ifmod(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
// Integer power by squaring (wraps on overflow like C); a negative exponent gives the truncated 1 / b^|e|.
static inline int eltwise_ipow(int b, int e)
{
    if (e < 0)
        return b == 1 ? 1 : (b == -1 ? ((e & 1) ? -1 : 1) : 0);
    int r = 1;
    while (e) {
        if (e & 1)
            r *= b;
        b *= b;
        e >>= 1;
    }
    return r;
}
// A float power cast to an integer type: truncation toward zero (ONNX Pow casts to the base's type), except
// that a value within 1e-6 (relative) of an integer is that integer (float pow of 3 by 6 may be 728.99994).
static inline float eltwise_pow_to_int(float v)
{
    const float r = rint(v);
    return fabs(v - r) <= 1e-6f * fabs(r) ? r : trunc(v);
}
#endif

KERNEL(eltwise_ref)(ELTWISE_INPUTS_DECL, __global OUTPUT_TYPE* output FUSED_OPS_ARGS)
{
#ifdef WG_OUT_OF_RANGE  // the GPU-tier twin (common/gpu_twin.py): gws rounded up to lws
    if (WG_OUT_OF_RANGE(get_global_id(0), get_global_id(1), get_global_id(2)))
        return;
#endif
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int f = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const int b = get_global_id(2) / OUTPUT_FEATURE_NUM;
    OUTPUT_VAL_TYPE val = ELTWISE_RESULT(b, f, y, x);
    FUSED_OPS(val, b, f, y, x);  // fused activation (float outputs only)
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(b, f, y, x), val);
}
