// Mean-variance normalization over contiguous rows for CPU OpenCL (PoCL): gws = (rows), lws = (1). The normalized
// axes are the trailing ones of an unpadded bfyx tensor, so row g is the MV_LEN floats at g * MV_LEN of input and
// output. Three passes over the row in float8 chunks (MV_LEN / 8 of them, then MV_LEN % 8 single floats): the sum,
// the sum of squared deviations from the mean (two passes, as mvn_ref: no cancellation), then
// y = (x - mean) * inv_std [* scale] [+ bias].
// SCALE_MODE / BIAS_MODE: 0 absent; 1 one value per row element (the operand covers the normalized axes: a
// LayerNorm's gamma / beta); 2 one value per row, operand[g % *_MOD] (an InstanceNorm's per-channel scale, or a
// scalar with *_MOD 1). A chunk is loaded and stored as 8 adjacent floats (LLVM combines them into one unaligned
// vector access; a row of 197 floats is not 32-byte aligned).
#define MV_LD8(p) ((float8)((p)[0], (p)[1], (p)[2], (p)[3], (p)[4], (p)[5], (p)[6], (p)[7]))
#define MV_ST8(p, v) { const float8 t_ = (v); (p)[0] = t_.s0; (p)[1] = t_.s1; (p)[2] = t_.s2; (p)[3] = t_.s3; \
                       (p)[4] = t_.s4; (p)[5] = t_.s5; (p)[6] = t_.s6; (p)[7] = t_.s7; }
#define MV_HSUM(v) (((v).s0 + (v).s1) + ((v).s2 + (v).s3)) + (((v).s4 + (v).s5) + ((v).s6 + (v).s7))

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(mvn_rows)(const __global INPUT0_TYPE* input,
#if SCALE_MODE
                 const __global float* scale,
#endif
#if BIAS_MODE
                 const __global float* bias,
#endif
                 __global OUTPUT_TYPE* output)
{
    const size_t g = get_global_id(0);
    const __global float* x = input + INPUT0_OFFSET + g * MV_LEN;
    __global float* y = output + OUTPUT_OFFSET + g * MV_LEN;
    float8 s8 = (float8)(0.0f);
    int i = 0;
    for (; i + 8 <= MV_LEN; i += 8)
        s8 += MV_LD8(x + i);
    float sum = MV_HSUM(s8);
    for (; i < MV_LEN; ++i)
        sum += x[i];
    const float mean = sum / (float)MV_LEN;
#if NORMALIZE_VARIANCE
    float8 q8 = (float8)(0.0f);
    for (i = 0; i + 8 <= MV_LEN; i += 8) {
        const float8 d = MV_LD8(x + i) - mean;
        q8 += d * d;
    }
    float sq = MV_HSUM(q8);
    for (; i < MV_LEN; ++i) {
        const float d = x[i] - mean;
        sq += d * d;
    }
    const float inv_std = 1.0f / sqrt(sq / (float)MV_LEN + EPSILON);
#endif
#if SCALE_MODE == 2
    const float sc = scale[g % SCALE_MOD];
#endif
#if BIAS_MODE == 2
    const float bi = bias[g % BIAS_MOD];
#endif
    for (i = 0; i + 8 <= MV_LEN; i += 8) {
        float8 v = MV_LD8(x + i) - mean;
#if NORMALIZE_VARIANCE
        v *= inv_std;
#endif
#if SCALE_MODE == 1
        v *= MV_LD8(scale + i);
#elif SCALE_MODE == 2
        v *= sc;
#endif
#if BIAS_MODE == 1
        v += MV_LD8(bias + i);
#elif BIAS_MODE == 2
        v += bi;
#endif
        MV_ST8(y + i, v)
    }
    for (; i < MV_LEN; ++i) {
        float v = x[i] - mean;
#if NORMALIZE_VARIANCE
        v *= inv_std;
#endif
#if SCALE_MODE == 1
        v *= scale[i];
#elif SCALE_MODE == 2
        v *= sc;
#endif
#if BIAS_MODE == 1
        v += bias[i];
#elif BIAS_MODE == 2
        v += bi;
#endif
        y[i] = v;
    }
}
#undef MV_LD8
#undef MV_ST8
#undef MV_HSUM
