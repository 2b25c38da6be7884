// Permute of an unpadded bfyx tensor reduced to its essential axes (kernel_selector/common/permute_plan.py), for CPU
// OpenCL (PoCL): work-groups of one work-item, 8-element vector loads and stores on both sides.
// PT_CASE 0, the input's innermost axis stays innermost: gws = (runs, chunks); a work-item copies PT_CHUNK elements
//   of run q (PT_LEN contiguous elements on both sides; the output's runs are in order, PT_OUTER(q) sets where the
//   input's starts).
// PT_CASE 1, the innermost axis moves: gws = (outer, ceil(PT_NI / 8), ceil(PT_NJ / 8)); a work-item transposes an 8x8
//   tile: 8 rows along input axis i (stride PT_IS_I) of 8 contiguous elements along the input's innermost axis j,
//   written as 8 rows along output axis j (stride PT_OS_J) of 8 contiguous elements along i (the output's
//   innermost axis). PT_OUTER(q) sets the tile's base offsets for the other axes; a partial tile goes element by
//   element.
#define PT_LD8(p) ((PT_T8)((p)[0], (p)[1], (p)[2], (p)[3], (p)[4], (p)[5], (p)[6], (p)[7]))
#define PT_ST8(p, v) { const PT_T8 t_ = (v); (p)[0] = t_.s0; (p)[1] = t_.s1; (p)[2] = t_.s2; (p)[3] = t_.s3; \
                       (p)[4] = t_.s4; (p)[5] = t_.s5; (p)[6] = t_.s6; (p)[7] = t_.s7; }
#define PT_COL(k) ((PT_T8)(r0.s##k, r1.s##k, r2.s##k, r3.s##k, r4.s##k, r5.s##k, r6.s##k, r7.s##k))

__attribute__((reqd_work_group_size(1, 1, 1)))
KERNEL(permute_tiled)(const __global INPUT0_TYPE* input, __global OUTPUT_TYPE* output)
{
    const size_t q = get_global_id(0);
    size_t in_base = 0, out_base = 0;
    PT_OUTER(q)
#if PT_CASE == 0
    const int c0 = (int)get_global_id(1) * PT_CHUNK;
    const int end = min(c0 + PT_CHUNK, PT_LEN);
    const __global INPUT0_TYPE* x = input + INPUT0_OFFSET + in_base;
    __global OUTPUT_TYPE* y = output + OUTPUT_OFFSET + q * PT_LEN;
    int i = c0;
    for (; i + 8 <= end; i += 8)
        PT_ST8(y + i, PT_LD8(x + i))
    for (; i < end; ++i)
        y[i] = x[i];
#else
    const int i0 = (int)get_global_id(1) * 8, j0 = (int)get_global_id(2) * 8;
    const __global INPUT0_TYPE* x = input + INPUT0_OFFSET + in_base + (size_t)i0 * PT_IS_I + j0;
    __global OUTPUT_TYPE* y = output + OUTPUT_OFFSET + out_base + (size_t)j0 * PT_OS_J + i0;
    if (i0 + 8 <= PT_NI && j0 + 8 <= PT_NJ) {
        const PT_T8 r0 = PT_LD8(x), r1 = PT_LD8(x + PT_IS_I), r2 = PT_LD8(x + 2 * PT_IS_I),
                    r3 = PT_LD8(x + 3 * PT_IS_I), r4 = PT_LD8(x + 4 * PT_IS_I), r5 = PT_LD8(x + 5 * PT_IS_I),
                    r6 = PT_LD8(x + 6 * PT_IS_I), r7 = PT_LD8(x + 7 * PT_IS_I);
        PT_ST8(y, PT_COL(0))
        PT_ST8(y + PT_OS_J, PT_COL(1))
        PT_ST8(y + 2 * PT_OS_J, PT_COL(2))
        PT_ST8(y + 3 * PT_OS_J, PT_COL(3))
        PT_ST8(y + 4 * PT_OS_J, PT_COL(4))
        PT_ST8(y + 5 * PT_OS_J, PT_COL(5))
        PT_ST8(y + 6 * PT_OS_J, PT_COL(6))
        PT_ST8(y + 7 * PT_OS_J, PT_COL(7))
    } else {
        const int ni = min(8, PT_NI - i0), nj = min(8, PT_NJ - j0);
        for (int jj = 0; jj < nj; ++jj)
            for (int ii = 0; ii < ni; ++ii)
                y[(size_t)jj * PT_OS_J + ii] = x[(size_t)ii * PT_IS_I + jj];
    }
#endif
}
#undef PT_LD8
#undef PT_ST8
#undef PT_COL
