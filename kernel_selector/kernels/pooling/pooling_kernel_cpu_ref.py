"""pooling_cpu_ref: the CPU engine's reference 2-D pooling (max / average / average_no_padding) in numpy."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from cldnn_py.ops import PoolingAttrs, PoolingMode

from ...common.cpu_window import pad_spatial, window_extent
from ...common.pooling import pooling_window
from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .pooling_kernel_ref import PoolingKernelRef

_TAP_LOOP_MAX = 64  # windows of more taps (global pooling) reduce a strided view instead of looping over taps


def _taps(start: np.ndarray, k: int, d: int) -> np.ndarray:
    """(len(start), k) coordinates of the taps start + t·d along one axis."""
    return start[:, None] + d * np.arange(k)[None, :]


def window_counts(out: int, size: int, k: int, s: int, d: int, pb: int, pe: int) -> tuple[np.ndarray, np.ndarray]:
    """Per output position along one axis: (valid taps in [0, size), taps below size + pe), both float32."""
    t = _taps(np.arange(out) * s - pb, k, d)
    return ((t >= 0) & (t < size)).sum(1).astype(np.float32), (t < size + pe).sum(1).astype(np.float32)


def pool_windows(xp: np.ndarray, k: tuple[int, int], s: tuple[int, int], d: tuple[int, int], out: tuple[int, int],
                 reduce: str) -> np.ndarray:
    """``max`` or ``sum`` over every window of a padded input ``xp`` (N, C, Hp, Wp): window (oy, ox) holds the taps
    xp[.., oy·s_y + ty·d_y, ox·s_x + tx·d_x]. Small windows accumulate one strided tap plane at a time; large ones
    (global pooling) reduce a (N, C, OH, OW, KH, KW) strided view."""
    if k[0] * k[1] > _TAP_LOOP_MAX:
        sn, sc, sh, sw = xp.strides
        view = as_strided(xp, xp.shape[:2] + out + k, (sn, sc, sh * s[0], sw * s[1], sh * d[0], sw * d[1]),
                          writeable=False)
        return view.max(axis=(4, 5)) if reduce == "max" else view.sum(axis=(4, 5), dtype=np.float32)
    acc: np.ndarray | None = None
    for ty in range(k[0]):
        for tx in range(k[1]):
            y0, x0 = ty * d[0], tx * d[1]
            tap = xp[:, :, y0:y0 + (out[0] - 1) * s[0] + 1:s[0], x0:x0 + (out[1] - 1) * s[1] + 1:s[1]]
            if acc is None:
                acc = tap.copy()
            elif reduce == "max":
                np.maximum(acc, tap, out=acc)
            else:
                acc += tap
    assert acc is not None
    return acc


@register
class PoolingKernelCpuRef(CpuRefKernel):
    """Reference 2-D pooling on the CPU engine, the semantics of ``pooling_ref``: output (oy, ox) pools the taps
    oy·stride − pad + t·dilation, t in [0, kernel), of each axis.

    - ``max``: maximum of the valid taps, NaN inputs ignored (OpenCL ``fmax`` from −inf: a window of NaNs only
      gives −inf); pad positions never win;
    - ``average``: sum of the valid taps / (taps inside [−pad, size + pad_end) along y × along x), ONNX
      ``count_include_pad=1``;
    - ``average_no_padding``: sum / number of valid taps.

    Input (N, C, H, W) f32 in any format (read logically); output (N, C, OH, OW) f32, its size from the primitive
    (ceil mode included). Global pooling takes kernel (H, W), stride 1, no pads, dilation 1 (``pooling_window``).
    Algorithm: pad with −inf (max) or 0 (sums) up to the extent the windows read, then :func:`pool_windows`; the
    divisors come from :func:`window_counts`. Fused ops are applied by the base.
    """

    twin = PoolingKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """(N, C, OH, OW) float32."""
        a = params.attrs_as(PoolingAttrs)
        k, s, pb, pe = pooling_window(params)
        d = (1, 1) if a.global_pooling else a.dilation
        mode = PoolingMode(a.mode)
        x = inputs[0].astype(np.float32, copy=False)
        h, w = x.shape[2], x.shape[3]
        out = (params.output.shape[2], params.output.shape[3])
        need = (window_extent(out[0], k[0], s[0], d[0]), window_extent(out[1], k[1], s[1], d[1]))
        if mode == PoolingMode.max:
            x = np.where(np.isnan(x), np.float32(-np.inf), x)
            return pool_windows(pad_spatial(x, pb, need, -np.inf), k, s, d, out, "max")
        acc = pool_windows(pad_spatial(x, pb, need, 0.0), k, s, d, out, "sum")
        vy, cy = window_counts(out[0], h, k[0], s[0], d[0], pb[0], pe[0])
        vx, cx = window_counts(out[1], w, k[1], s[1], d[1], pb[1], pe[1])
        div = (vy[:, None] * vx[None, :]) if mode == PoolingMode.average_no_padding else (cy[:, None] * cx[None, :])
        return acc / div
