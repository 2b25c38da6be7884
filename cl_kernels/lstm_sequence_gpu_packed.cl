// LSTM sequence for GPUs, R packed os_iyx_osv16 ([4·hidden/16][hidden][16]): gws = (hidden/8, batch),
// lws = (hidden/8, 1).
// Work-item l of group b owns the 8 hidden units j0 = 8·l .. 8·l+7 of sequence b: their c in a float8, the whole h
// in local memory. Per step, for each k: one h[k] broadcast from local memory times the four gate rows' 8 weights
// (one aligned float8 load each: rows g·hidden + j0 .. +7 lie in one 16-row slice, as hidden % 8 == 0), the
// blocked-direct-convolution recipe of docs/performance.md; then peepholes, clip, c and h on float8; a barrier
// before h is overwritten and one after.
#if LSTM_HAS_CLIP
#define LSTM_CLAMP8(v) clamp((v), -LSTM_CLIP, LSTM_CLIP)
#else
#define LSTM_CLAMP8(v) (v)
#endif
// the 8 rows g·hidden + j0 .. +7 of R at column k
#define R_OFF(g) ((((g) * LSTM_HIDDEN + j0) >> 4) * (LSTM_HIDDEN * 16) + (((g) * LSTM_HIDDEN + j0) & 15))

KERNEL(lstm_sequence_gpu_packed)(const __global INPUT0_TYPE* xw, const __global INPUT1_TYPE* h0,
                                 const __global INPUT2_TYPE* c0, const __global INPUT3_TYPE* r,
#if LSTM_PEEPHOLES
                                 const __global INPUT4_TYPE* p,
#endif
                                 __global OUTPUT_TYPE* output)
{
    __local float h[LSTM_HIDDEN];
    const int l = (int)get_local_id(0);
    const int b = (int)get_global_id(1);
    const int j0 = 8 * l;
    float cv[8], pv[3][8];
    for (int u = 0; u < 8; ++u) {
        cv[u] = c0[INPUT2_IDX6(b, j0 + u, 0, 0, 0, 0)];
        h[j0 + u] = h0[INPUT1_IDX6(b, j0 + u, 0, 0, 0, 0)];
        for (int g = 0; g < 3; ++g)
#if LSTM_PEEPHOLES
            pv[g][u] = p[INPUT4_IDX6(g * LSTM_HIDDEN + j0 + u, 0, 0, 0, 0, 0)];
#else
            pv[g][u] = 0.0f;
#endif
    }
    float8 c = vload8(0, cv);
    const float8 pi = vload8(0, pv[0]), po = vload8(0, pv[1]), pf = vload8(0, pv[2]);
    const __global float8* ri = (const __global float8*)(r + R_OFF(0));
    const __global float8* ro = (const __global float8*)(r + R_OFF(1));
    const __global float8* rf = (const __global float8*)(r + R_OFF(2));
    const __global float8* rc = (const __global float8*)(r + R_OFF(3));
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int t = 0; t < LSTM_SEQ; ++t) {
        const int s = LSTM_REVERSE ? LSTM_SEQ - 1 - t : t;
        const int row = s * LSTM_BATCH + b;
        float zv[4][8];
        for (int g = 0; g < 4; ++g)
            for (int u = 0; u < 8; ++u)
                zv[g][u] = xw[INPUT0_IDX6(row, g * LSTM_HIDDEN + j0 + u, 0, 0, 0, 0)];
        float8 zi = vload8(0, zv[0]), zo = vload8(0, zv[1]), zf = vload8(0, zv[2]), zc = vload8(0, zv[3]);
        for (int k = 0; k < LSTM_HIDDEN; ++k) {
            const float hk = h[k];
            zi = ri[2 * k] * hk + zi;   // float8 index 2·k: column k of the slice is 16 floats
            zo = ro[2 * k] * hk + zo;
            zf = rf[2 * k] * hk + zf;
            zc = rc[2 * k] * hk + zc;
        }
        const float8 gi = cldnn_sigmoid8(LSTM_CLAMP8(zi + pi * c));
        const float8 gf = cldnn_sigmoid8(LSTM_CLAMP8(zf + pf * c));
        c = gf * c + gi * tanh(LSTM_CLAMP8(zc));
        const float8 go = cldnn_sigmoid8(LSTM_CLAMP8(zo + po * c));
        const float8 hn = go * tanh(c);
        barrier(CLK_LOCAL_MEM_FENCE);   // every work-item has read h
        vstore8(hn, 0, h + j0);
        float hv[8], cw[8];
        vstore8(hn, 0, hv);
        vstore8(c, 0, cw);
        for (int u = 0; u < 8; ++u) {
            output[OUTPUT_IDX6(s, b, j0 + u, 0, 0, 0)] = hv[u];
            output[OUTPUT_IDX6(s, b, LSTM_HIDDEN + j0 + u, 0, 0, 0)] = cw[u];
        }
        barrier(CLK_LOCAL_MEM_FENCE);   // the new h is complete
    }
}
#undef R_OFF
#undef LSTM_CLAMP8
