// Reference RoI align (ONNX RoiAlign, in onnxruntime's order of float operations): gws = (x, y, f * b) of the
// output, one work-item per output element: RoI r (the output's b), channel c (f), bin (ph, pw) = (y, x).
// The RoI [x1, y1, x2, y2] is scaled by ROI_SPATIAL_SCALE and shifted by -0.5 (ROI_HALF_PIXEL) or its size clamped to
// >= 1 (output_half_pixel). The bin takes grid_h x grid_w samples (ROI_SAMPLING_RATIO, or ceil(bin size) per axis
// when 0: none for a size <= 0 or not finite). A sample outside [-1, H] x [-1, W] (or NaN) is 0; otherwise its
// coordinates are clamped to >= 0 and it weighs its four neighbouring pixels (the last row / column alone at the
// border). Average: the sum of the samples' interpolations over max(grid_h * grid_w, 1); max: per sample the
// largest of its four weighted corners, then the largest over the samples. A batch index outside [0, N) writes 0.
#define ROI_MAX(a, b) (((a) < (b)) ? (b) : (a))  // std::max's rule, as onnxruntime applies it
#if ROI_HALF_PIXEL
#define ROI_OFFSET 0.5f
#else
#define ROI_OFFSET 0.0f
#endif
#define ROI_GRID(bin) ((isfinite(bin) && (bin) > 0.0f) ? convert_int_sat(ceil(bin)) : 0)

KERNEL(roi_align_ref)(const __global INPUT0_TYPE* input, const __global INPUT1_TYPE* rois,
                      const __global INPUT2_TYPE* batch_indices, __global OUTPUT_TYPE* output)
{
    const int pw = get_global_id(0);
    const int ph = get_global_id(1);
    const int c = get_global_id(2) % OUTPUT_FEATURE_NUM;
    const int r = get_global_id(2) / OUTPUT_FEATURE_NUM;
    const int b = (int)batch_indices[INPUT2_GET_INDEX(r, 0, 0, 0)];
    float acc = 0.0f;
    if (b >= 0 && b < INPUT0_BATCH_NUM) {
        const float start_w = (float)INPUT1_LOAD(rois, INPUT1_GET_INDEX(r, 0, 0, 0)) * ROI_SPATIAL_SCALE - ROI_OFFSET;
        const float start_h = (float)INPUT1_LOAD(rois, INPUT1_GET_INDEX(r, 1, 0, 0)) * ROI_SPATIAL_SCALE - ROI_OFFSET;
        const float end_w = (float)INPUT1_LOAD(rois, INPUT1_GET_INDEX(r, 2, 0, 0)) * ROI_SPATIAL_SCALE - ROI_OFFSET;
        const float end_h = (float)INPUT1_LOAD(rois, INPUT1_GET_INDEX(r, 3, 0, 0)) * ROI_SPATIAL_SCALE - ROI_OFFSET;
        float roi_w = end_w - start_w;
        float roi_h = end_h - start_h;
#if !ROI_HALF_PIXEL
        roi_w = ROI_MAX(roi_w, 1.0f);
        roi_h = ROI_MAX(roi_h, 1.0f);
#endif
        const float bin_h = roi_h / (float)OUTPUT_SIZE_Y;
        const float bin_w = roi_w / (float)OUTPUT_SIZE_X;
#if ROI_SAMPLING_RATIO > 0
        const int grid_h = ROI_SAMPLING_RATIO;
        const int grid_w = ROI_SAMPLING_RATIO;
#else
        const int grid_h = ROI_GRID(bin_h);
        const int grid_w = ROI_GRID(bin_w);
#endif
#if ROI_MODE_MAX
        int first = 1;
#endif
        for (int iy = 0; iy < grid_h; ++iy) {
            const float y = start_h + (float)ph * bin_h + ((float)iy + 0.5f) * bin_h / (float)grid_h;
            for (int ix = 0; ix < grid_w; ++ix) {
                const float x = start_w + (float)pw * bin_w + ((float)ix + 0.5f) * bin_w / (float)grid_w;
                float v = 0.0f;
                if (y >= -1.0f && y <= (float)INPUT0_SIZE_Y && x >= -1.0f && x <= (float)INPUT0_SIZE_X) {
                    float yy = (y <= 0.0f) ? 0.0f : y;
                    float xx = (x <= 0.0f) ? 0.0f : x;
                    int y_lo = (int)yy;
                    int x_lo = (int)xx;
                    int y_hi = y_lo + 1;
                    int x_hi = x_lo + 1;
                    if (y_lo >= INPUT0_SIZE_Y - 1) {
                        y_lo = y_hi = INPUT0_SIZE_Y - 1;
                        yy = (float)y_lo;
                    }
                    if (x_lo >= INPUT0_SIZE_X - 1) {
                        x_lo = x_hi = INPUT0_SIZE_X - 1;
                        xx = (float)x_lo;
                    }
                    const float ly = yy - (float)y_lo;
                    const float lx = xx - (float)x_lo;
                    const float hy = 1.0f - ly;
                    const float hx = 1.0f - lx;
                    const float v1 = (hy * hx) * INPUT0_LOAD(input, INPUT0_GET_INDEX(b, c, y_lo, x_lo));
                    const float v2 = (hy * lx) * INPUT0_LOAD(input, INPUT0_GET_INDEX(b, c, y_lo, x_hi));
                    const float v3 = (ly * hx) * INPUT0_LOAD(input, INPUT0_GET_INDEX(b, c, y_hi, x_lo));
                    const float v4 = (ly * lx) * INPUT0_LOAD(input, INPUT0_GET_INDEX(b, c, y_hi, x_hi));
#if ROI_MODE_MAX
                    v = ROI_MAX(ROI_MAX(ROI_MAX(v1, v2), v3), v4);
#else
                    v = v1 + v2 + v3 + v4;
#endif
                }
#if ROI_MODE_MAX
                acc = first ? v : ROI_MAX(acc, v);
                first = 0;
#else
                acc += v;
#endif
            }
        }
#if !ROI_MODE_MAX
        acc /= (float)max(grid_h, 1) * (float)max(grid_w, 1);
#endif
    }
    OUTPUT_STORE(output, OUTPUT_GET_INDEX(r, c, ph, pw), acc);
}
#undef ROI_MAX
#undef ROI_OFFSET
#undef ROI_GRID
