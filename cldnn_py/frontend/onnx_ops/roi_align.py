"""RoiAlign → one RoiAlign primitive (Mask R-CNN's RoIAlign, He et al. 2017; semantics: ONNX RoiAlign 10, 16, 22).

Version 10 has no ``coordinate_transformation_mode``: it behaves as ``output_half_pixel`` (no -0.5 shift, RoI size
clamped to >= 1); from 16 the attribute defaults to ``half_pixel``; 22 only widens the types. ``rois`` and
``batch_indices`` may be graph inputs or constants; int64 batch indices are stored as i32 (the importer's boundary
conversion). Constant batch indices are checked against the batch size at import (onnxruntime checks them at run
time); run-time ones outside [0, N) give zeros for their RoI. No RoI gives an empty output.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ShapeError, UnsupportedError
from ...ops.pooling import ROI_ALIGN_COORDINATE_MODES, ROI_ALIGN_MODES
from ...primitives.roi_align import RoiAlign
from . import converter
from .nn_common import where


@converter("RoiAlign", versions=(10, 16, 22))
def roi_align(ctx: Any, node: Any) -> None:
    """RoiAlign(X, rois, batch_indices) with output_height, output_width, sampling_ratio, spatial_scale, mode and
    (16+) coordinate_transformation_mode. Raises UnsupportedError naming the node for a mode or coordinate mode
    ONNX does not define or a spatial_scale that is not positive; ShapeError for constant batch indices outside
    [0, N) or inputs of the wrong rank (the primitive's checks)."""
    a = ctx.attrs(node)
    since = 10 if ctx.opset < 16 else 16
    ctm = a.get("coordinate_transformation_mode", "output_half_pixel" if since == 10 else "half_pixel")
    mode = a.get("mode", "avg")
    if mode not in ROI_ALIGN_MODES or ctm not in ROI_ALIGN_COORDINATE_MODES:
        raise UnsupportedError(f"{where(node)}: mode {mode!r} / coordinate_transformation_mode {ctm!r}: expected "
                               f"one of {ROI_ALIGN_MODES} / {ROI_ALIGN_COORDINATE_MODES}")
    scale = float(a.get("spatial_scale", 1.0))
    if not scale > 0:
        raise UnsupportedError(f"{where(node)}: spatial_scale: expected > 0, got {scale}")
    x, rois, idx = node.input[:3]
    xshape, rshape = ctx.shape(x), ctx.shape(rois)
    oh, ow = int(a.get("output_height", 1)), int(a.get("output_width", 1))
    if len(xshape) != 4 or len(rshape) != 2:
        raise ShapeError(f"{where(node)}: X and rois ranks: expected 4 and 2, got shapes {xshape} and {rshape}")
    if ctx.is_const(idx):
        b = np.asarray(ctx.const(idx)).reshape(-1)
        if ((b < 0) | (b >= xshape[0])).any():
            raise ShapeError(f"{where(node)}: batch_indices: expected in [0, {xshape[0]}), got {b[:8].tolist()}")
    if rshape[0] == 0:
        ctx.empty(node.output[0], (0, xshape[1], oh, ow), x)
        return
    ctx.add(RoiAlign(node.output[0], ctx.ref(x), ctx.ref(rois), ctx.ref(idx), output_height=oh, output_width=ow,
                     sampling_ratio=int(a.get("sampling_ratio", 0)), spatial_scale=scale, mode=mode,
                     coordinate_transformation_mode=ctm))
