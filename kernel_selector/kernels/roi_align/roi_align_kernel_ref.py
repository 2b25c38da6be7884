"""roi_align_ref: one work-item per output element (RoI, channel, bin) pools the bilinear samples of its bin."""

from __future__ import annotations

import numpy as np

from cldnn_py.layout import DataType
from cldnn_py.ops import RoiAlignAttrs

from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


def roi_align_reason(params: Params) -> str | None:
    """Why ``params`` is no RoiAlign these kernels take (shared by both engines' references), or None: INPUT0 rank 4,
    INPUT1 (rois) (num_rois, 4) f32 / f16, INPUT2 (batch indices) (num_rois,) i32, OUTPUT (num_rois, C,
    output_height, output_width) f32 / f16."""
    if len(params.inputs) != 3:
        return f"3 inputs (input, rois, batch_indices) expected, got {len(params.inputs)}"
    a = params.attrs_as(RoiAlignAttrs)
    x, rois, idx = params.inputs
    if x.rank != 4:
        return f"input rank {x.rank}, expected 4"
    if rois.rank != 2 or rois.shape[1] != 4 or rois.dtype not in FLOATS:
        return f"rois must be (num_rois, 4) f32 or f16, got {rois.shape} {rois.dtype.value}"
    if idx.shape != (rois.shape[0],) or idx.dtype != DataType.i32:
        return f"batch indices must be ({rois.shape[0]},) i32, got {idx.shape} {idx.dtype.value}"
    shape = (rois.shape[0], x.shape[1], int(a.output_height), int(a.output_width))
    if params.output.shape != shape:
        return f"output shape {params.output.shape}, expected {shape}"
    return None


@register
class RoiAlignKernelRef(KernelBase):
    """Reference RoI align (Mask R-CNN's RoIAlign; ONNX RoiAlign-10/16/22 as onnxruntime computes it; semantics in
    :class:`cldnn_py.primitives.roi_align.RoiAlign`).

    INPUT0 (N, C, H, W) f32 or f16 in any format, possibly padded; INPUT1 rois (num_rois, 4) f32 or f16 and INPUT2
    batch indices (num_rois,) i32, any format; OUTPUT (num_rois, C, output_height, output_width) f32 or f16, any
    format. gws = (x, y, f * b) of the output: each work-item reads its RoI and batch index, derives the bin's
    sample grid (``ROI_SAMPLING_RATIO``, or adaptive per RoI when 0), interpolates each sample from four pixels read
    through ``INPUT0_GET_INDEX`` and averages (``ROI_MODE_MAX`` 0) or takes the maximum; arithmetic in float in
    onnxruntime's order. A batch index outside [0, N) writes 0 (nothing is read). No fused ops.
    """

    name = "roi_align_ref"
    primitive = "roi_align"
    n_data_inputs = 1  # the key checks the feature map; rois and batch indices are checked by validate()

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16 (storage) feature map and output, any format, padding allowed."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """Shapes and data types of rois, batch indices and output (:func:`roi_align_reason`)."""
        return roi_align_reason(params)

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus ``ROI_SAMPLING_RATIO`` (0: adaptive), ``ROI_SPATIAL_SCALE``, ``ROI_HALF_PIXEL`` (shift by
        -0.5; else clamp the RoI size to >= 1), ``ROI_MODE_MAX`` (max pooling; else average)."""
        a = params.attrs_as(RoiAlignAttrs)
        j = super().jit_constants(params)
        return j.update({"ROI_SAMPLING_RATIO": int(a.sampling_ratio),
                         "ROI_SPATIAL_SCALE": f"{float(np.float32(a.spatial_scale)):.9e}f",
                         "ROI_HALF_PIXEL": int(a.coordinate_transformation_mode == "half_pixel"),
                         "ROI_MODE_MAX": int(a.mode == "max")})
