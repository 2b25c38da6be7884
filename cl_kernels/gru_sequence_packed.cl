// GRU sequence for CPU devices, R packed os_iyx_osv16 ([3·hidden/16][hidden][16]): gws = (batch), lws = (1).
// One work-item runs the recurrence of one sequence, no barriers (the LSTM's lstm_sequence_packed recipe). Per step:
// pass 1 over pairs of 8-unit blocks, float8 accumulators of H·R_zᵀ, H·R_rᵀ and, with linear_before_reset, H·R_hᵀ
// (6 accumulators, h[k] broadcast, one aligned float8 load per gate row block and k), the gates to local scratch;
// without linear_before_reset, pass 2 computes (r∘H)·R_hᵀ from the scratch the same way; then h~ and the new state.
#if GRU_HAS_CLIP
#define GRU_CLAMP8(v) clamp((v), -GRU_CLIP, GRU_CLIP)
#else
#define GRU_CLAMP8(v) (v)
#endif
#define R_PTR(g, j0) ((const __global float8*)(r + ((((g) * GRU_HIDDEN + (j0)) >> 4) * (GRU_HIDDEN * 16) + \
                                                    (((g) * GRU_HIDDEN + (j0)) & 15))))
#define XW_AT(row, col) xw[INPUT0_IDX6((row), (col), 0, 0, 0, 0)]
#define LOAD8(dst, expr) { float tmp_[8]; for (int u_ = 0; u_ < 8; ++u_) { const int u = u_; tmp_[u_] = (expr); } \
                           dst = vload8(0, tmp_); }
// acc0 / acc1 += Σ_k vec[k] · R rows (g, j0 .. +7) / (g, j1 .. +7)
#define MATVEC2(acc0, acc1, g, j0, j1, vec) { \
    const __global float8* p0_ = R_PTR(g, j0); const __global float8* p1_ = R_PTR(g, j1); \
    for (int k = 0; k < GRU_HIDDEN; ++k) { const float v_ = (vec)[k]; \
        acc0 = p0_[2 * k] * v_ + acc0; acc1 = p1_[2 * k] * v_ + acc1; } }

KERNEL(gru_sequence_packed)(const __global INPUT0_TYPE* xw, const __global INPUT1_TYPE* h0,
                            const __global INPUT2_TYPE* r,
#if GRU_LBR
                            const __global INPUT3_TYPE* rbh,
#endif
                            __global OUTPUT_TYPE* output)
{
    const int b = (int)get_global_id(0);
    __local float hbuf[2][GRU_HIDDEN];
    __local float zbuf[GRU_HIDDEN];
    __local float tbuf[GRU_HIDDEN];   // r∘(H·R_hᵀ + Rb_h) with linear_before_reset, else r∘H
    for (int j = 0; j < GRU_HIDDEN; ++j)
        hbuf[0][j] = h0[INPUT1_IDX6(b, j, 0, 0, 0, 0)];
    for (int t = 0; t < GRU_SEQ; ++t) {
        const int s = GRU_REVERSE ? GRU_SEQ - 1 - t : t;
        const int row = s * GRU_BATCH + b;
        const __local float* h = hbuf[t & 1];
        __local float* hn = hbuf[(t + 1) & 1];
        for (int jb = 0; jb < GRU_HIDDEN; jb += 16) {
            const int j1 = min(jb + 8, GRU_HIDDEN - 8);  // a last lone block computes its 8 units twice
            float8 z0, z1, r0, r1;
            LOAD8(z0, XW_AT(row, jb + u));
            LOAD8(z1, XW_AT(row, j1 + u));
            LOAD8(r0, XW_AT(row, GRU_HIDDEN + jb + u));
            LOAD8(r1, XW_AT(row, GRU_HIDDEN + j1 + u));
#if GRU_LBR
            float8 a0, a1;
            LOAD8(a0, rbh[INPUT3_IDX6(jb + u, 0, 0, 0, 0, 0)]);
            LOAD8(a1, rbh[INPUT3_IDX6(j1 + u, 0, 0, 0, 0, 0)]);
            {
                const __global float8* pz0 = R_PTR(0, jb); const __global float8* pz1 = R_PTR(0, j1);
                const __global float8* pr0 = R_PTR(1, jb); const __global float8* pr1 = R_PTR(1, j1);
                const __global float8* ph0 = R_PTR(2, jb); const __global float8* ph1 = R_PTR(2, j1);
                for (int k = 0; k < GRU_HIDDEN; ++k) {
                    const float hk = h[k];
                    z0 = pz0[2 * k] * hk + z0; z1 = pz1[2 * k] * hk + z1;
                    r0 = pr0[2 * k] * hk + r0; r1 = pr1[2 * k] * hk + r1;
                    a0 = ph0[2 * k] * hk + a0; a1 = ph1[2 * k] * hk + a1;
                }
            }
            vstore8(cldnn_sigmoid8(GRU_CLAMP8(r1)) * a1, 0, tbuf + j1);
            vstore8(cldnn_sigmoid8(GRU_CLAMP8(r0)) * a0, 0, tbuf + jb);
#else
            MATVEC2(z0, z1, 0, jb, j1, h);
            MATVEC2(r0, r1, 1, jb, j1, h);
            vstore8(cldnn_sigmoid8(GRU_CLAMP8(r1)) * vload8(0, h + j1), 0, tbuf + j1);
            vstore8(cldnn_sigmoid8(GRU_CLAMP8(r0)) * vload8(0, h + jb), 0, tbuf + jb);
#endif
            vstore8(cldnn_sigmoid8(GRU_CLAMP8(z1)), 0, zbuf + j1);
            vstore8(cldnn_sigmoid8(GRU_CLAMP8(z0)), 0, zbuf + jb);
        }
        for (int jb = 0; jb < GRU_HIDDEN; jb += 16) {
            const int j1 = min(jb + 8, GRU_HIDDEN - 8);
            float8 a0, a1;
            LOAD8(a0, XW_AT(row, 2 * GRU_HIDDEN + jb + u));
            LOAD8(a1, XW_AT(row, 2 * GRU_HIDDEN + j1 + u));
#if GRU_LBR
            a0 += vload8(0, tbuf + jb);
            a1 += vload8(0, tbuf + j1);
#else
            MATVEC2(a0, a1, 2, jb, j1, tbuf);
#endif
            const float8 z0 = vload8(0, zbuf + jb), z1 = vload8(0, zbuf + j1);
            vstore8((1.0f - z1) * tanh(GRU_CLAMP8(a1)) + z1 * vload8(0, h + j1), 0, hn + j1);
            vstore8((1.0f - z0) * tanh(GRU_CLAMP8(a0)) + z0 * vload8(0, h + jb), 0, hn + jb);
        }
        for (int j = 0; j < GRU_HIDDEN; ++j)
            output[OUTPUT_IDX6(s, b, j, 0, 0, 0)] = hn[j];
    }
}
#undef R_PTR
#undef XW_AT
#undef LOAD8
#undef MATVEC2
#undef GRU_CLAMP8
