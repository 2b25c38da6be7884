"""resize_cpu_ref: the CPU engine's reference resize, separable gather-and-weight with the taps of resize_ref."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import ResizeAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .resize_kernel_ref import ResizeKernelRef
from .resize_taps import axis_taps, is_identity_axis


@register
class ResizeKernelCpuRef(CpuRefKernel):
    """Reference resize on the CPU engine (twin of ``resize_ref``, clDNN ``resample_ref``): every ONNX Resize mode
    through the per-axis index/weight tables of :mod:`.resize_taps` (nearest and its rounding modes, linear, cubic,
    antialias, exclude_outside, tf_crop_and_resize extrapolation). The sum over taps of the product of per-axis
    weights is separable, so the axes are resampled one after the other: ``y = sum_t w_d[:, t] * take(y,
    idx_d[:, t], axis=d)`` (weights float32 as the OpenCL tables, accumulation in float32); an output element
    whose coordinate is extrapolated on any axis gets ``extrapolation_value``. Axes copied unchanged are skipped.
    Any format and padding (rank <= 4; unpadded bfyx for rank 5-6), f32 only; no fused ops."""

    twin = ResizeKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """Resample each non-identity axis in turn, then write the extrapolation value where flagged."""
        y = inputs[0].astype(np.float32, copy=False)
        extrap = np.zeros((), dtype=bool)
        for d, (n, m) in enumerate(zip(inputs[0].shape, params.output.shape)):
            if is_identity_axis(params.attrs_as(ResizeAttrs), d, n, m):
                continue
            idx, w, ex = axis_taps(params.attrs_as(ResizeAttrs), d, n, m)
            w32 = w.astype(np.float32)
            shape = [1] * y.ndim
            shape[d] = m
            acc = np.zeros(y.shape[:d] + (m,) + y.shape[d + 1:], dtype=np.float32)
            with np.errstate(invalid="ignore", over="ignore"):
                for t in range(idx.shape[1]):
                    acc += w32[:, t].reshape(shape) * np.take(y, idx[:, t], axis=d)
            y = acc
            if ex.any():
                extrap = extrap | ex.reshape(shape)
        if extrap.any():
            y = np.where(extrap, np.float32(params.attrs_as(ResizeAttrs).extrapolation_value), y)
        return y
