"""mvn_cpu_ref: the CPU engine's reference mean-variance normalization, on logical arrays."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import MVNAttrs, mvn_scale_offset

from ...common.nd_reduce import normalize_axes
from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .mvn_kernel_ref import MVNKernelRef


def aligned(t: np.ndarray, offset: int, rank: int) -> np.ndarray:
    """A scale/bias whose dimension 0 aligns with input axis ``offset``, as a float32 array of rank ``rank``
    (size-1 dimensions before and after) for numpy broadcasting."""
    shape = (1,) * offset + t.shape + (1,) * (rank - offset - t.ndim)
    return t.astype(np.float32, copy=False).reshape(shape)


@register
class MVNKernelCpuRef(CpuRefKernel):
    """Reference MVN on the CPU engine, the semantics of ``mvn_ref`` (ONNX InstanceNormalization /
    LayerNormalization): for every position of the non-reduced axes, mean = Σx / R and var = Σ(x − mean)² / R
    (two passes, biased; sums accumulated in float64), inv_std = 1 / sqrt(var + epsilon) in float32, then
    y = (x − mean)·inv_std (x − mean without ``normalize_variance``) · scale + bias, scale and bias aligned by
    ``scale_axis`` (:func:`cldnn_py.primitives.mvn.mvn_scale_offset`). ``result`` mean / inv_std_dev outputs that
    statistic (the reduced axes kept as 1). Inputs x (rank 1-6; 5-6 unpadded bfyx), [scale], [bias]; f32 in and
    out; no fused ops (as the OpenCL reference).
    """

    twin = MVNKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The normalized tensor, or the mean / inverse standard deviation per group, float32."""
        a = params.attrs_as(MVNAttrs)
        x = inputs[0].astype(np.float32, copy=False)
        axes = normalize_axes(a.axes, x.ndim)
        n = 1
        for ax in axes:
            n *= x.shape[ax]
        with np.errstate(all="ignore"):
            mean = np.asarray(np.sum(x, axis=axes, keepdims=True, dtype=np.float64) / n, dtype=np.float32)
            if a.result == "mean":
                return mean
            d = x - mean
            var = np.asarray(np.sum(np.square(d, dtype=np.float64), axis=axes, keepdims=True) / n, dtype=np.float32)
            inv_std = np.float32(1) / np.sqrt(var + np.float32(a.epsilon))
            if a.result == "inv_std_dev":
                return inv_std
            v = d * inv_std if a.normalize_variance else d
            k = 1
            for flag in ("has_scale", "has_bias"):
                if getattr(a, flag):
                    t = aligned(inputs[k], mvn_scale_offset(a.scale_axis, x.ndim, inputs[k].ndim), x.ndim)
                    v = v * t if flag == "has_scale" else v + t
                    k += 1
        return v
