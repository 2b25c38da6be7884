// Reference LSTM sequence: gws = (LSTM_LWS, batch), lws = (LSTM_LWS, 1). Work-item l of group b owns hidden units
// j = l + u * LSTM_LWS (u < LSTM_PER_ITEM) of sequence b: their c in registers, the whole h in local memory. Per
// step: the four gate rows (ONNX order i, o, f, c) as xw + R·h, peepholes, clip, then c and h; a barrier before h is
// overwritten and one after.
#ifndef LSTM_SEQUENCE_HELPERS_CL  // several lstm_sequence kernels may share one batched cl.Program
#define LSTM_SEQUENCE_HELPERS_CL
static inline float lstm_sigmoid(float x) { return 1.0f / (1.0f + exp(-x)); }
#endif
#if LSTM_HAS_CLIP
#define LSTM_CLAMP(v) clamp((v), -LSTM_CLIP, LSTM_CLIP)
#else
#define LSTM_CLAMP(v) (v)
#endif
#define XW(row, col) xw[INPUT0_IDX6((row), (col), 0, 0, 0, 0)]
#define R(row, col) r[INPUT3_IDX6((row), (col), 0, 0, 0, 0)]
#if LSTM_PEEPHOLES
#define PEEP(k) p[INPUT4_IDX6((k), 0, 0, 0, 0, 0)]
#else
#define PEEP(k) 0.0f
#endif

KERNEL(lstm_sequence_ref)(const __global INPUT0_TYPE* xw, const __global INPUT1_TYPE* h0,
                          const __global INPUT2_TYPE* c0, const __global INPUT3_TYPE* r,
#if LSTM_PEEPHOLES
                          const __global INPUT4_TYPE* p,
#endif
                          __global OUTPUT_TYPE* output)
{
    __local float h[LSTM_HIDDEN];
    const int l = (int)get_local_id(0);
    const int b = (int)get_global_id(1);
    float c[LSTM_PER_ITEM];
    float hn[LSTM_PER_ITEM];
    for (int u = 0; u < LSTM_PER_ITEM; ++u) {
        const int j = l + u * LSTM_LWS;
        if (j < LSTM_HIDDEN) {
            c[u] = c0[INPUT2_IDX6(b, j, 0, 0, 0, 0)];
            h[j] = h0[INPUT1_IDX6(b, j, 0, 0, 0, 0)];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int t = 0; t < LSTM_SEQ; ++t) {
        const int s = LSTM_REVERSE ? LSTM_SEQ - 1 - t : t;
        const int row = s * LSTM_BATCH + b;
        for (int u = 0; u < LSTM_PER_ITEM; ++u) {
            const int j = l + u * LSTM_LWS;
            if (j >= LSTM_HIDDEN)
                break;
            float zi = XW(row, j);
            float zo = XW(row, LSTM_HIDDEN + j);
            float zf = XW(row, 2 * LSTM_HIDDEN + j);
            float zc = XW(row, 3 * LSTM_HIDDEN + j);
            for (int k = 0; k < LSTM_HIDDEN; ++k) {
                const float hk = h[k];
                zi += R(j, k) * hk;
                zo += R(LSTM_HIDDEN + j, k) * hk;
                zf += R(2 * LSTM_HIDDEN + j, k) * hk;
                zc += R(3 * LSTM_HIDDEN + j, k) * hk;
            }
            const float gi = lstm_sigmoid(LSTM_CLAMP(zi + PEEP(j) * c[u]));
            const float gf = lstm_sigmoid(LSTM_CLAMP(zf + PEEP(2 * LSTM_HIDDEN + j) * c[u]));
            c[u] = gf * c[u] + gi * tanh(LSTM_CLAMP(zc));
            const float go = lstm_sigmoid(LSTM_CLAMP(zo + PEEP(LSTM_HIDDEN + j) * c[u]));
            hn[u] = go * tanh(c[u]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);   // every work-item has read h
        for (int u = 0; u < LSTM_PER_ITEM; ++u) {
            const int j = l + u * LSTM_LWS;
            if (j < LSTM_HIDDEN) {
                h[j] = hn[u];
                output[OUTPUT_IDX6(s, b, j, 0, 0, 0)] = hn[u];
                output[OUTPUT_IDX6(s, b, LSTM_HIDDEN + j, 0, 0, 0)] = c[u];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);   // the new h is complete
    }
}
#undef XW
#undef R
#undef PEEP
#undef LSTM_CLAMP
