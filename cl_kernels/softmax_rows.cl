// Softmax / log-softmax over contiguous rows for CPU OpenCL (PoCL): gws = (rows), lws = (1). The normalized axes are
// the trailing ones of an unpadded bfyx tensor, so row g is the SM_LEN floats at g * SM_LEN of input and output. Three
// passes over the row in float8 chunks (SM_LEN / 8 of them, then SM_LEN % 8 single floats): the maximum, the sum of
// exp(x - max) with the exponentials stored to the output, then the output scaled by 1 / sum (log-softmax:
// (x - max) - log(sum) written in the last pass). A chunk is loaded and stored as 8 adjacent floats (SM_LD8 / SM_ST8: one
// unaligned vector access after LLVM's load/store combining; a row of 197 floats is not 32-byte aligned), exp on
// float8. The maximum is taken with comparisons that let a NaN lose, as fmax (softmax_ref).
#define SM_LD8(p) ((float8)((p)[0], (p)[1], (p)[2], (p)[3], (p)[4], (p)[5], (p)[6], (p)[7]))
#define SM_ST8(p, v) { const float8 t_ = (v); (p)[0] = t_.s0; (p)[1] = t_.s1; (p)[2] = t_.s2; (p)[3] = t_.s3; \
                       (p)[4] = t_.s4; (p)[5] = t_.s5; (p)[6] = t_.s6; (p)[7] = t_.s7; }

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(softmax_rows)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const __global float* x = input + INPUT0_OFFSET + (size_t)get_global_id(0) * SM_LEN;
    __global float* y = output + OUTPUT_OFFSET + (size_t)get_global_id(0) * SM_LEN;
    float8 m8 = (float8)(-INFINITY);
    int i = 0;
    for (; i + 8 <= SM_LEN; i += 8) {
        const float8 v = SM_LD8(x + i);
        m8 = (v > m8) ? v : m8;
    }
    float m = m8.s0;
    m = m8.s1 > m ? m8.s1 : m; m = m8.s2 > m ? m8.s2 : m; m = m8.s3 > m ? m8.s3 : m;
    m = m8.s4 > m ? m8.s4 : m; m = m8.s5 > m ? m8.s5 : m; m = m8.s6 > m ? m8.s6 : m; m = m8.s7 > m ? m8.s7 : m;
    for (; i < SM_LEN; ++i)
        m = x[i] > m ? x[i] : m;
    float8 s8 = (float8)(0.0f);
    for (i = 0; i + 8 <= SM_LEN; i += 8) {
        const float8 e = exp(SM_LD8(x + i) - m);
        s8 += e;
#if !SOFTMAX_LOG
        SM_ST8(y + i, e)
#endif
    }
    float sum = ((s8.s0 + s8.s1) + (s8.s2 + s8.s3)) + ((s8.s4 + s8.s5) + (s8.s6 + s8.s7));
    for (; i < SM_LEN; ++i) {
        const float e = exp(x[i] - m);
        sum += e;
#if !SOFTMAX_LOG
        y[i] = e;
#endif
    }
#if SOFTMAX_LOG  // (x - max) - log(sum): x - max is exact near the maximum, where x - (max + log(sum)) is not
    const float ls = log(sum);
    for (i = 0; i + 8 <= SM_LEN; i += 8)
        SM_ST8(y + i, (SM_LD8(x + i) - m) - ls)
    for (; i < SM_LEN; ++i)
        y[i] = (x[i] - m) - ls;
#else
    const float inv = 1.0f / sum;
    for (i = 0; i + 8 <= SM_LEN; i += 8)
        SM_ST8(y + i, SM_LD8(y + i) * inv)
    for (; i < SM_LEN; ++i)
        y[i] *= inv;
#endif
}
#undef SM_LD8
#undef SM_ST8
