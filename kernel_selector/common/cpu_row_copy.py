"""A copy of a tensor's logical elements, in row-major order, between two physical layouts on the CPU engine, as
strided row copies (numba): the data movement of reshape_cpu_copy and crop_cpu_copy.

Both tensors are described by per-axis offsets (:mod:`.cpu_strides`); the longest run of logical elements that is
one stride in both (the ``gcd`` of each tensor's trailing run) is a row, and a table of row starts per tensor,
built once, covers padding, permuted plain formats and blocked feature axes. A contiguous row is a straight loop
(LLVM turns it into vector moves); a strided one an element loop. Values move as unsigned integers of their size,
so a copy is bit-exact (NaN payloads included) and one compiled function serves f32 and i32 alike.
"""

from __future__ import annotations

from math import gcd
from typing import Any

import numba
import numpy as np
from numba import prange

from .cpu_launch import Launcher
from .cpu_strides import inner_run, run_table
from .elementwise_numba import NJIT

CHUNK = 16384  # elements per task: a long row is split, short rows are grouped up to this
BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}  # item size -> the type elements move as


@numba.njit(parallel=True, **NJIT)
def copy_rows(out: np.ndarray, otab: np.ndarray, x: np.ndarray, xtab: np.ndarray,
              geo: np.ndarray) -> None:  # pragma: no cover - numba
    """out[otab[r] + j·so] = x[xtab[r] + j·sx] for every row r and j < n; ``geo`` = (n, sx, so, rows per task,
    elements per task). A task copies one chunk of a long row or a group of short rows."""
    n, sx, so, per, ch = geo[0], geo[1], geo[2], geo[3], geo[4]
    nrows = xtab.shape[0]
    nch = (n + ch - 1) // ch
    for t in prange(((nrows + per - 1) // per) * nch):
        g = t // nch
        s = (t - g * nch) * ch
        m = min(n, s + ch) - s
        for r in range(g * per, min(nrows, g * per + per)):
            xb = xtab[r] + s * sx
            ob = otab[r] + s * so
            if sx == 1 and so == 1:
                src = x[xb:xb + m]
                dst = out[ob:ob + m]
                for i in range(m):
                    dst[i] = src[i]
            else:
                for i in range(m):
                    out[ob + i * so] = x[xb + i * sx]


class RowCopy:
    """Copies the logical elements of a source tensor to a destination tensor of the same element count and
    item size, in row-major order: ``dst.flat[k] = src.flat[k]`` over the logical (not physical) order, any shapes
    (a reshape) or the same shape (a crop: the source described as the box of its input).

    Each side is (logical shape, per-axis offsets from :func:`.cpu_strides.axis_offsets`, flat index of logical
    element 0, buffer bytes). Raises ValueError when the counts differ. ``__call__(src_buf, dst_buf)`` takes the raw
    uint8 buffers; only the destination's logical elements are written (its padding and block tail keep their
    content)."""

    def __init__(self, src: tuple[tuple[int, ...], list[np.ndarray], int, int],
                 dst: tuple[tuple[int, ...], list[np.ndarray], int, int], itemsize: int) -> None:
        (xs, xo, xb, self.xbytes), (os_, oo, ob, self.obytes) = src, dst
        count = int(np.prod(xs))
        if count != int(np.prod(os_)):
            raise ValueError(f"copy of {xs} into {os_}: element counts differ")
        n = gcd(inner_run(xs, xo)[1], inner_run(os_, oo)[1])
        self.xtab, sx = run_table(xs, xo, xb, n)
        self.otab, so = run_table(os_, oo, ob, n)
        per = max(1, CHUNK // n)
        self.geo = np.array([n, sx, so, per, min(n, CHUNK)], np.int64)
        self.dt = BITS[itemsize]
        self.launch = Launcher(2 * count)

    def __call__(self, src: Any, dst: Any) -> None:
        """Copy from the raw buffer ``src`` into the raw buffer ``dst``."""
        self.launch(copy_rows, dst[:self.obytes].view(self.dt), self.otab, src[:self.xbytes].view(self.dt),
                    self.xtab, self.geo)
