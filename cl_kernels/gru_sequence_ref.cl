// Reference GRU sequence: gws = (batch), lws = (1). One work-item runs the recurrence of sequence b (ONNX GRU, gates
// z, r, h): per step z and r for every unit, then h~ and the new state; h double-buffered in local memory, the gate
// values in local scratch. Any format and padding through the N-D index macros.
#if GRU_HAS_CLIP
#define GRU_CLAMP(v) clamp((v), -GRU_CLIP, GRU_CLIP)
#else
#define GRU_CLAMP(v) (v)
#endif
#define XW(row, col) xw[INPUT0_IDX6((row), (col), 0, 0, 0, 0)]
#define R(row, col) r[INPUT2_IDX6((row), (col), 0, 0, 0, 0)]

KERNEL(gru_sequence_ref)(const __global INPUT0_TYPE* xw, const __global INPUT1_TYPE* h0,
                         const __global INPUT2_TYPE* r,
#if GRU_LBR
                         const __global INPUT3_TYPE* rbh,
#endif
                         __global OUTPUT_TYPE* output)
{
    const int b = (int)get_global_id(0);
    __local float hbuf[2][GRU_HIDDEN];
    __local float zg[GRU_HIDDEN];
    __local float rg[GRU_HIDDEN];
    for (int j = 0; j < GRU_HIDDEN; ++j)
        hbuf[0][j] = h0[INPUT1_IDX6(b, j, 0, 0, 0, 0)];
    for (int t = 0; t < GRU_SEQ; ++t) {
        const int s = GRU_REVERSE ? GRU_SEQ - 1 - t : t;
        const int row = s * GRU_BATCH + b;
        const __local float* h = hbuf[t & 1];
        __local float* hn = hbuf[(t + 1) & 1];
        for (int j = 0; j < GRU_HIDDEN; ++j) {
            float az = XW(row, j), ar = XW(row, GRU_HIDDEN + j);
            for (int k = 0; k < GRU_HIDDEN; ++k) {
                az += R(j, k) * h[k];
                ar += R(GRU_HIDDEN + j, k) * h[k];
            }
            zg[j] = cldnn_sigmoid(GRU_CLAMP(az));
            rg[j] = cldnn_sigmoid(GRU_CLAMP(ar));
        }
        for (int j = 0; j < GRU_HIDDEN; ++j) {
            float acc = 0.0f;
            for (int k = 0; k < GRU_HIDDEN; ++k)
#if GRU_LBR
                acc += R(2 * GRU_HIDDEN + j, k) * h[k];
            const float ah = XW(row, 2 * GRU_HIDDEN + j) + rg[j] * (acc + rbh[INPUT3_IDX6(j, 0, 0, 0, 0, 0)]);
#else
                acc += R(2 * GRU_HIDDEN + j, k) * (rg[k] * h[k]);
            const float ah = XW(row, 2 * GRU_HIDDEN + j) + acc;
#endif
            const float hj = (1.0f - zg[j]) * tanh(GRU_CLAMP(ah)) + zg[j] * h[j];
            hn[j] = hj;
            output[OUTPUT_IDX6(s, b, j, 0, 0, 0)] = hj;
        }
    }
}
#undef XW
#undef R
#undef GRU_CLAMP
