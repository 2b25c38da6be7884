"""Per-axis sampling taps of Resize: for every output index of one axis, the input indices it reads and their
weights (ONNX Resize-19 semantics; the formulas are the operator's specification, see ``onnx/defs`` Resize).

Resize is separable: an output element is ``sum over taps t_d of prod_d w_d[o_d, t_d] * x[i_0[o_0, t_0], ...]``
over the resized axes, so the kernel needs, per resized axis, an index table and a weight table of shape
(output size, taps). Computing them once on the host (float64, shapes are static) keeps the OpenCL kernel one
generic gather-and-weight loop for every mode:

1. coordinate transform: output index o -> input coordinate x (``coordinate_transformation_mode``);
2. ``nearest``: one tap, x rounded by ``nearest_mode``;
   ``linear`` / ``cubic``: taps j around x with weight f((j - x) * s'), f the triangle (support 1) or Keys cubic
   (support 2, coefficient ``a``) kernel; s' = min(scale, 1) with ``antialias`` (the filter stretched by 1/scale
   when downsampling, then normalized to sum 1), else 1;
3. ``exclude_outside``: taps outside [0, n) get weight 0 and the rest is renormalized; otherwise out-of-range
   taps read the nearest edge element (indices clamped);
4. ``tf_crop_and_resize``: an output index whose coordinate leaves [0, n - 1] is flagged (extrapolation value).
"""

from __future__ import annotations

import math

import numpy as np

from cldnn_py.ops import ResizeAttrs


def source_coords(ctm: str, m: int, n: int, scale: float, roi: tuple[float, float] | None) -> np.ndarray:
    """Input coordinate of each of the ``m`` output indices of an axis of input size ``n``.

    ``scale`` is the axis' scale factor (output / input, possibly not m / n when it came from ``scales``). The
    resized length in the formulas (align_corners, pytorch_half_pixel, tf_crop_and_resize, half_pixel_symmetric)
    is ``scale * n``, which may be fractional, as in the ONNX reference implementation; it is m for ``sizes``.
    """
    o = np.arange(m, dtype=np.float64)
    width = scale * n
    if ctm == "half_pixel":
        return (o + 0.5) / scale - 0.5
    if ctm == "half_pixel_symmetric":
        offset = n / 2 * (1 - m / width)
        return offset + (o + 0.5) / scale - 0.5
    if ctm == "pytorch_half_pixel":
        return (o + 0.5) / scale - 0.5 if width > 1 else np.zeros(m)
    if ctm == "align_corners":
        return o * (n - 1) / (width - 1) if width != 1 else np.zeros(m)
    if ctm == "asymmetric":
        return o / scale
    if ctm == "tf_half_pixel_for_nn":
        return (o + 0.5) / scale
    if ctm == "tf_crop_and_resize":
        assert roi is not None
        start, end = roi
        if width != 1:
            return start * (n - 1) + o * (end - start) * (n - 1) / (width - 1)
        return np.full(m, 0.5 * (start + end) * (n - 1))
    raise ValueError(f"unknown coordinate_transformation_mode {ctm!r}")


def _round_nearest(x: np.ndarray, mode: str, scale: float) -> np.ndarray:
    if mode == "round_prefer_floor":
        return np.ceil(x - 0.5)
    if mode == "round_prefer_ceil":
        return np.floor(x + 0.5)
    if mode == "floor":
        return np.floor(x)
    if mode == "ceil":
        return np.ceil(x)
    if mode == "simple":  # Upsample / Resize-10: floor when upsampling, ceil when downsampling
        return np.ceil(x) if scale < 1 else np.floor(x)
    raise ValueError(f"unknown nearest_mode {mode!r}")


def _filter(mode: str, d: np.ndarray, a: float) -> np.ndarray:
    """Triangle (linear) or Keys cubic kernel at distances ``d``."""
    d = np.abs(d)
    if mode == "linear":
        return np.clip(1 - d, 0, None)
    d2, d3 = d * d, d * d * d
    near = (a + 2) * d3 - (a + 3) * d2 + 1
    far = a * d3 - 5 * a * d2 + 8 * a * d - 4 * a
    return np.where(d <= 1, near, np.where(d < 2, far, 0.0))


def axis_taps(attrs: ResizeAttrs, axis: int, n: int, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indices int32 (m, T), weights float64 (m, T), extrapolated bool (m,)) of one axis.

    ``attrs`` are the Resize primitive's typed attributes (mode, coordinate_transformation_mode, nearest_mode,
    cubic_coeff_a, exclude_outside, antialias, scales, roi); ``n``/``m`` the axis' input/output sizes.
    """
    scales = attrs.scales
    scale = float(scales[axis]) if scales is not None else m / n
    roi = attrs.roi
    rank = len(roi) // 2 if roi is not None else 0
    ctm = attrs.coordinate_transformation_mode
    x = source_coords(ctm, m, n, scale, (roi[axis], roi[axis + rank]) if roi is not None else None)
    extrap = (x < 0) | (x > n - 1) if ctm == "tf_crop_and_resize" else np.zeros(m, dtype=bool)
    mode = attrs.mode
    if mode == "nearest":
        idx = np.clip(_round_nearest(x, attrs.nearest_mode, scale), 0, n - 1).astype(np.int32)
        return idx[:, None], np.ones((m, 1)), extrap
    radius = 1 if mode == "linear" else 2
    s = min(scale, 1.0) if attrs.antialias else 1.0
    half = math.ceil(radius / s - 1e-9)  # taps each side of floor(x)
    x0 = np.floor(x)
    j = x0[:, None] + np.arange(-half + 1, half + 1)[None, :]
    w = _filter(mode, (j - x[:, None]) * s, float(attrs.cubic_coeff_a))
    if attrs.exclude_outside:
        w = np.where((j < 0) | (j > n - 1), 0.0, w)
    if attrs.antialias or attrs.exclude_outside:
        total = w.sum(axis=1, keepdims=True)
        w = w / np.where(total == 0, 1.0, total)
    idx = np.clip(j, 0, n - 1).astype(np.int32)
    keep = np.abs(w).sum(axis=0) > 0  # drop tap columns that are zero for every output index
    if not keep.any():
        keep[0] = True
    return idx[:, keep], w[:, keep], extrap


def is_identity_axis(attrs: ResizeAttrs, axis: int, n: int, m: int) -> bool:
    """True when the axis is copied unchanged: same size with scale 1 (ONNX leaves such an axis alone whatever the
    coordinate mode, e.g. tf_half_pixel_for_nn would otherwise shift it by half a pixel; tf_crop_and_resize only
    with the whole roi), or every output index reads exactly itself with weight 1 and no extrapolation."""
    if n != m:
        return False
    scales, roi = attrs.scales, attrs.roi
    if scales is None or math.isclose(float(scales[axis]), 1.0):
        if attrs.coordinate_transformation_mode != "tf_crop_and_resize" or roi is None or (
                math.isclose(roi[axis], 0.0) and math.isclose(roi[axis + len(roi) // 2], 1.0)):
            return True
    idx, w, extrap = axis_taps(attrs, axis, n, m)
    return (not extrap.any() and idx.shape[1] == 1 and bool((idx[:, 0] == np.arange(m)).all())
            and bool((w == 1).all()))
