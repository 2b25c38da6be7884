// LSTM sequence for CPU devices, R packed os_iyx_osv16 ([4·hidden/16][hidden][16]): gws = (batch), lws = (1).
// One work-item runs the whole recurrence of one sequence, with no barriers (PoCL runs a work-group of one as
// straight code; lstm_sequence_gpu_packed spreads the units over a work-group instead, whose barriers and
// work-item loops made PoCL's code 2x slower, and its forward direction 2x slower than its reverse). Per step,
// per pair of 8-unit blocks: eight float8 accumulators (2 blocks x 4 gates) over k with h[k] broadcast, each gate
// row block one aligned float8 load (rows g·hidden + j0 .. +7 lie in one 16-row slice, as hidden % 8 == 0); h
// double-buffered and c in __local memory of the group of one.
#if LSTM_HAS_CLIP
#define LSTM_CLAMP8(v) clamp((v), -LSTM_CLIP, LSTM_CLIP)
#else
#define LSTM_CLAMP8(v) (v)
#endif
#define R_PTR(g, j0) ((const __global float8*)(r + ((((g) * LSTM_HIDDEN + (j0)) >> 4) * (LSTM_HIDDEN * 16) + \
                                                    (((g) * LSTM_HIDDEN + (j0)) & 15))))
#define LOAD8(dst, expr) { float tmp_[8]; for (int u_ = 0; u_ < 8; ++u_) { const int u = u_; tmp_[u_] = (expr); } \
                           dst = vload8(0, tmp_); }

KERNEL(lstm_sequence_packed)(const __global INPUT0_TYPE* xw, const __global INPUT1_TYPE* h0,
                             const __global INPUT2_TYPE* c0, const __global INPUT3_TYPE* r,
#if LSTM_PEEPHOLES
                             const __global INPUT4_TYPE* p,
#endif
                             __global OUTPUT_TYPE* output)
{
    const int b = (int)get_global_id(0);
    __local float hbuf[2][LSTM_HIDDEN];
    __local float cbuf[LSTM_HIDDEN];
    for (int j = 0; j < LSTM_HIDDEN; ++j) {
        hbuf[0][j] = h0[INPUT1_IDX6(b, j, 0, 0, 0, 0)];
        cbuf[j] = c0[INPUT2_IDX6(b, j, 0, 0, 0, 0)];
    }
    for (int t = 0; t < LSTM_SEQ; ++t) {
        const int s = LSTM_REVERSE ? LSTM_SEQ - 1 - t : t;
        const int row = s * LSTM_BATCH + b;
        const __local float* h = hbuf[t & 1];
        __local float* hn = hbuf[(t + 1) & 1];
        for (int jb = 0; jb < LSTM_HIDDEN; jb += 16) {
          float8 zi2[2], zo2[2], zf2[2], zc2[2];
          for (int q = 0; q < 2; ++q) {
            const int j0 = jb + 8 * q;
            LOAD8(zi2[q], j0 < LSTM_HIDDEN ? xw[INPUT0_IDX6(row, j0 + u, 0, 0, 0, 0)] : 0.0f);
            LOAD8(zo2[q], j0 < LSTM_HIDDEN ? xw[INPUT0_IDX6(row, LSTM_HIDDEN + j0 + u, 0, 0, 0, 0)] : 0.0f);
            LOAD8(zf2[q], j0 < LSTM_HIDDEN ? xw[INPUT0_IDX6(row, 2 * LSTM_HIDDEN + j0 + u, 0, 0, 0, 0)] : 0.0f);
            LOAD8(zc2[q], j0 < LSTM_HIDDEN ? xw[INPUT0_IDX6(row, 3 * LSTM_HIDDEN + j0 + u, 0, 0, 0, 0)] : 0.0f);
          }
          {
            const int j1 = min(jb + 8, LSTM_HIDDEN - 8);  // a last lone block computes its last 8 twice
            const __global float8* ri = R_PTR(0, jb);
            const __global float8* ro = R_PTR(1, jb);
            const __global float8* rf = R_PTR(2, jb);
            const __global float8* rc = R_PTR(3, jb);
            const __global float8* ri1 = R_PTR(0, j1);
            const __global float8* ro1 = R_PTR(1, j1);
            const __global float8* rf1 = R_PTR(2, j1);
            const __global float8* rc1 = R_PTR(3, j1);
            float8 zi = zi2[0], zo = zo2[0], zf = zf2[0], zc = zc2[0];
            float8 zi1 = zi2[1], zo1 = zo2[1], zf1 = zf2[1], zc1 = zc2[1];
            for (int k = 0; k < LSTM_HIDDEN; ++k) {
                const float hk = h[k];
                zi = ri[2 * k] * hk + zi;
                zo = ro[2 * k] * hk + zo;
                zf = rf[2 * k] * hk + zf;
                zc = rc[2 * k] * hk + zc;
                zi1 = ri1[2 * k] * hk + zi1;
                zo1 = ro1[2 * k] * hk + zo1;
                zf1 = rf1[2 * k] * hk + zf1;
                zc1 = rc1[2 * k] * hk + zc1;
            }
            zi2[0] = zi; zo2[0] = zo; zf2[0] = zf; zc2[0] = zc;
            zi2[1] = zi1; zo2[1] = zo1; zf2[1] = zf1; zc2[1] = zc1;
          }
          for (int q = 0; q < 2 && jb + 8 * q < LSTM_HIDDEN; ++q) {
            const int j0 = jb + 8 * q;
            const float8 zi = zi2[q], zo = zo2[q], zf = zf2[q], zc = zc2[q];
            float8 c = vload8(0, cbuf + j0);
#if LSTM_PEEPHOLES
            float8 pi, po, pf;
            LOAD8(pi, p[INPUT4_IDX6(j0 + u, 0, 0, 0, 0, 0)]);
            LOAD8(po, p[INPUT4_IDX6(LSTM_HIDDEN + j0 + u, 0, 0, 0, 0, 0)]);
            LOAD8(pf, p[INPUT4_IDX6(2 * LSTM_HIDDEN + j0 + u, 0, 0, 0, 0, 0)]);
#else
            const float8 pi = 0.0f, po = 0.0f, pf = 0.0f;
#endif
            const float8 gi = cldnn_sigmoid8(LSTM_CLAMP8(zi + pi * c));
            const float8 gf = cldnn_sigmoid8(LSTM_CLAMP8(zf + pf * c));
            c = gf * c + gi * tanh(LSTM_CLAMP8(zc));
            const float8 go = cldnn_sigmoid8(LSTM_CLAMP8(zo + po * c));
            const float8 hv = go * tanh(c);
            vstore8(c, 0, cbuf + j0);
            vstore8(hv, 0, hn + j0);
            for (int u = 0; u < 8; ++u) {
                output[OUTPUT_IDX6(s, b, j0 + u, 0, 0, 0)] = hn[j0 + u];
                output[OUTPUT_IDX6(s, b, LSTM_HIDDEN + j0 + u, 0, 0, 0)] = cbuf[j0 + u];
            }
          }
        }
    }
}
#undef R_PTR
#undef LOAD8
#undef LSTM_CLAMP8
