"""roi_align_cpu_ref: the CPU engine's reference RoI align, vectorized per RoI in numpy."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import RoiAlignAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .roi_align_kernel_ref import RoiAlignKernelRef


def _axis_samples(start: np.float32, bin_size: np.float32, bins: int, grid: int, size: int) -> tuple[np.ndarray, ...]:
    """One axis of a RoI's sample grid, arrays of shape (bins, grid): (valid, low index, high index, weight of the low
    index, weight of the high index). Float32 arithmetic in onnxruntime's order; a coordinate outside [-1, size] (or
    NaN) is not valid (its indices 0); a valid one is clamped to >= 0, and at or past the last pixel reads that pixel
    alone."""
    f = np.float32
    p = np.arange(bins, dtype=f)[:, None]
    i = np.arange(grid, dtype=f)[None, :]
    with np.errstate(invalid="ignore", over="ignore"):
        c = start + p * bin_size + (i + f(0.5)) * bin_size / f(grid)
        valid = (c >= -1) & (c <= size)
    c = np.where(valid, np.maximum(c, f(0)), f(0)).astype(f)
    low = c.astype(np.int64)                       # c >= 0: truncation is floor
    edge = low >= size - 1
    low = np.where(edge, size - 1, low)
    high = np.where(edge, size - 1, low + 1)
    c = np.where(edge, low.astype(f), c)
    lw = (c - low.astype(f)).astype(f)
    return valid, low, high, (f(1) - lw).astype(f), lw


def _grid(sampling_ratio: int, bin_size: np.float32) -> int:
    """The sample grid along one axis: ``sampling_ratio``, or ceil(bin size) when 0 (0 for a size <= 0 or not
    finite: no samples)."""
    if sampling_ratio > 0:
        return sampling_ratio
    return int(np.ceil(bin_size)) if np.isfinite(bin_size) and bin_size > 0 else 0


@register
class RoiAlignKernelCpuRef(CpuRefKernel):
    """Reference RoI align on the CPU engine, the semantics of ``roi_align_ref`` (ONNX RoiAlign as onnxruntime
    computes it): per RoI, the sample coordinates of each axis in float32 (:func:`_axis_samples`), the four corner
    values of every sample gathered at once (channels x bins x samples), weighted, then summed per sample and averaged
    over the bin (``avg``) or maximized per sample and over the bin (``max``). A batch index outside [0, N) gives zeros.
    Input, rois and output f32 / f16 in any format (computed in float32), batch indices i32."""

    twin = RoiAlignKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The (num_rois, C, output_height, output_width) output, float32."""
        a = params.attrs_as(RoiAlignAttrs)
        x, rois, idx = inputs
        n, c, h, w = x.shape
        oh, ow = int(a.output_height), int(a.output_width)
        f = np.float32
        scale, offset = f(a.spatial_scale), f(0.5 if a.coordinate_transformation_mode == "half_pixel" else 0.0)
        out = np.zeros((rois.shape[0], c, oh, ow), np.float32)
        with np.errstate(invalid="ignore", over="ignore"):
            corners = rois.astype(f) * scale - offset
        for r in range(rois.shape[0]):
            b = int(idx[r])
            if not 0 <= b < n:
                continue
            x0, y0, x1, y1 = corners[r]
            with np.errstate(invalid="ignore", over="ignore"):
                rw, rh = f(x1 - x0), f(y1 - y0)
                if a.coordinate_transformation_mode != "half_pixel":
                    rw, rh = (f(1) if rw < 1 else rw), (f(1) if rh < 1 else rh)  # std::max's rule: NaN stays
                bh, bw = f(rh / f(oh)), f(rw / f(ow))
            gh, gw = _grid(int(a.sampling_ratio), bh), _grid(int(a.sampling_ratio), bw)
            if gh == 0 or gw == 0:
                continue                            # no samples: the bin is 0
            vy, ylo, yhi, wylo, wyhi = _axis_samples(y0, bh, oh, gh, h)
            vx, xlo, xhi, wxlo, wxhi = _axis_samples(x0, bw, ow, gw, w)
            img = x[b].astype(np.float32)
            valid = (vy[:, :, None, None] & vx[None, None, :, :])[None]      # (1, oh, gh, ow, gw)
            terms = []
            for yi, wy in ((ylo, wylo), (yhi, wyhi)):
                for xi, wx in ((xlo, wxlo), (xhi, wxhi)):
                    v = img[:, yi[:, :, None, None], xi[None, None, :, :]]  # (c, oh, gh, ow, gw)
                    terms.append((wy[:, :, None, None] * wx[None, None, :, :])[None] * v)
            if a.mode == "max":
                s = np.where(valid, np.maximum(np.maximum(np.maximum(terms[0], terms[1]), terms[2]), terms[3]), 0)
                out[r] = s.max(axis=(2, 4))
            else:
                s = np.where(valid, terms[0] + terms[1] + terms[2] + terms[3], 0)
                out[r] = s.sum(axis=(2, 4), dtype=np.float64) / float(gh * gw)
        return out
