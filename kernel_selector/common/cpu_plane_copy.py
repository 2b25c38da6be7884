"""Copy one channel plane of a bfyx tensor into a bordered scratch (numba, CPU engine): the first step of the
depthwise rows (``convolution/cpu_depthwise_vec.py``) and of the planes pooling (``pooling_kernel_cpu_planes``)."""

from __future__ import annotations

import numba
import numpy as np

from .cpu_span_copy import copy_span
from .elementwise_numba import NJIT


@numba.njit(**NJIT)
def copy_plane(dst: np.ndarray, d0: int, ldd: int, x: np.ndarray, ibase: int, mi: np.ndarray, n_y: int,
               n_x: int) -> None:  # pragma: no cover - numba
    """Rows 0 ≤ iy < ``n_y``, columns 0 ≤ ix < ``n_x`` of the plane starting at ``x[ibase]`` (row pitch ``mi[3]``,
    x pitch ``mi[4]``: :func:`kernel_selector.common.cpu_layout.row_map`) to ``dst[d0 + iy * ldd + ix]``. The rows
    are copied between local slices: indexing ``dst`` and ``x`` directly ran 2-5× slower (LLVM cannot rule out that
    the two overlap, and does not vectorize)."""
    for iy in range(n_y):
        src = ibase + iy * mi[3]
        if mi[4] == 1:
            copy_span(dst, d0 + iy * ldd, x, src, n_x)
        else:
            row = dst[d0 + iy * ldd:d0 + iy * ldd + n_x]
            for i in range(n_x):
                row[i] = x[src + i * mi[4]]
