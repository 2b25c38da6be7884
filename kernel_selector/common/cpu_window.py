"""Window helpers of the numpy reference kernels (convolution_cpu_ref, pooling_cpu_ref)."""

from __future__ import annotations

import numpy as np


def pad_spatial(x: np.ndarray, pad: tuple[int, int], need: tuple[int, int], value: float = 0.0) -> np.ndarray:
    """``x`` (N, C, H, W) with ``pad`` (y, x) rows/columns of ``value`` before and enough after that the padded
    extent is at least ``need`` (y, x); ``x`` itself when nothing is to be added."""
    h, w = x.shape[2], x.shape[3]
    ey, ex = max(0, need[0] - pad[0] - h), max(0, need[1] - pad[1] - w)
    if not (pad[0] or pad[1] or ey or ex):
        return x
    return np.pad(x, ((0, 0), (0, 0), (pad[0], ey), (pad[1], ex)), constant_values=value)


def window_extent(out: int, k: int, stride: int, dilation: int) -> int:
    """Rows (or columns) of the padded input that ``out`` windows of ``k`` taps read: (out−1)·stride +
    (k−1)·dilation + 1."""
    return (out - 1) * stride + (k - 1) * dilation + 1
