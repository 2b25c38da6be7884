"""batch_norm_cpu_vec: inference batch normalization on the CPU engine as one per-channel affine pass (numba)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from cldnn_py.layout import DataType, Layout
from cldnn_py.ops import BatchNormAttrs

from ...common.cpu_affine_base import CpuAffineKernel
from ...common.cpu_launch import viewer
from ...common.elementwise_numba import NJIT
from ...cpu_kernel_base import physical_index
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params
from ...selector import register
from .batch_norm_kernel_ref import BatchNormKernelRef


@register
class BatchNormKernelCpuVec(CpuAffineKernel):
    """y = (x − mean[c]) / sqrt(var[c] + eps) · scale[c] + shift[c] (Ioffe & Szegedy 2015), then the fused chain,
    on the CPU engine.

    Inputs: data (N, C[, H[, W]]) f32 in bfyx, byxf, yxfb, fyxb or b_fs_yx_fsv16 (padding allowed); mean, variance,
    then scale when ``has_scale`` and shift when ``has_shift``, each C values in any layout. Output: the data's
    shape and format. The C multipliers and offsets are computed in float64 from the statistics on each run (they
    may be network inputs; :func:`bn_coefficients`), then one pass of
    :func:`~kernel_selector.common.cpu_channel_affine.channel_affine` over the data: DenseNet-121 normalizes 62
    concatenations this way (the reference took 36% of its CPU time). Raises nothing at run time; validate()
    explains a refusal.
    """

    name = "batch_norm_cpu_vec"
    primitive = "batch_norm"

    def validate(self, params: Params) -> str | None:
        """The reference's input rules, then the affine rows' layout rules."""
        return BatchNormKernelRef().validate(params) or super().validate(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def coefficients(self, params: Params) -> Callable[[tuple[Any, ...]], tuple[np.ndarray, int, np.ndarray, int]]:
        """mul = scale / sqrt(var + eps), add = shift − mean · mul (scale 1 and shift 0 when absent), in float64 by
        :func:`bn_coefficients` into two vectors kept by the kernel (CPU kernels run one at a time). Each statistic is
        read through an index computed at build (a plain slice when its layout is dense): reading them through
        ``read_logical`` hashed each Layout per run, 70% of a 1024-channel 7×7 batch norm's time."""
        a = params.attrs_as(BatchNormAttrs)
        stats = params.inputs[1:]
        c = params.inputs[0].shape[1]
        readers = [_reader(lay) for lay in stats]
        eps = float(a.epsilon)
        mul, add = np.empty(c, np.float32), np.empty(c, np.float32)
        has_scale, has_shift = bool(a.has_scale), bool(a.has_shift)
        none = np.empty(0, np.float32)

        def coeffs(bufs: tuple[Any, ...]) -> tuple[np.ndarray, int, np.ndarray, int]:
            v = [r(b) for r, b in zip(readers, bufs[1:])]
            scale = v[2] if has_scale else none
            shift = v[2 + int(has_scale)] if has_shift else none
            bn_coefficients(v[0], v[1], scale, shift, eps, mul, add)
            return mul, 0, add, 0

        return coeffs


def _reader(lay: Layout) -> Callable[[np.ndarray], np.ndarray]:
    """A function of a raw buffer returning the statistic's C values as float32: a view when the layout is dense,
    else a gather through the physical index computed here."""
    idx = physical_index(lay).ravel()
    view = viewer(lay)
    if lay.dtype == DataType.f32 and idx.size and (np.diff(idx) == 1).all():
        lo, hi = int(idx[0]), int(idx[-1]) + 1
        return lambda buf: view(buf)[lo:hi]
    return lambda buf: view(buf)[idx].astype(np.float32)


@numba.njit(**NJIT)
def bn_coefficients(mean: np.ndarray, var: np.ndarray, scale: np.ndarray, shift: np.ndarray, eps: float,
                    mul: np.ndarray, add: np.ndarray) -> None:  # pragma: no cover - numba
    """mul[c] = scale[c] / sqrt(var[c] + eps), add[c] = shift[c] − mean[c] · mul[c] in float64, stored as float32;
    an empty ``scale`` / ``shift`` means 1 / 0. A negative var + eps gives NaN, as the reference does."""
    for i in range(mul.shape[0]):
        m = (np.float64(scale[i]) if scale.shape[0] else 1.0) / np.sqrt(np.float64(var[i]) + eps)
        mul[i] = m
        add[i] = (np.float64(shift[i]) if shift.shape[0] else 0.0) - np.float64(mean[i]) * m
