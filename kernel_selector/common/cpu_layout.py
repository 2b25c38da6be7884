"""Row descriptors of CPU tensors for the numba kernels (eltwise_cpu_vec, pooling_cpu_fsv16)."""

from __future__ import annotations

import numpy as np

from cldnn_py.layout import DIMS, Layout


def layout_offset(lay: Layout) -> int:
    """Flat index of logical element (0, 0, 0, 0): the lower padding times the pitches; along a blocked dimension
    (an in-place concatenation's b_fs_yx_fsv16 slice) whole blocks times the slice pitch plus the rest in lanes."""
    p = lay.pitches
    blk = lay.format.block
    off = 0
    for d, lo in zip(DIMS, lay.padding.lower):
        off += (lo // blk[1]) * p[d] + lo % blk[1] if blk is not None and d == blk[0] else lo * p[d]
    return off


def row_map(lay: Layout) -> np.ndarray:
    """int64[5]: (offset, b pitch, feature-slice pitch, y pitch, x pitch) of a rank <= 4 layout."""
    p = lay.pitches
    return np.array([layout_offset(lay), p["b"], p["f"], p["y"], p["x"]], np.int64)
