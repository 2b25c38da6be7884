"""Per-axis element offsets of CPU tensors, and the runs and row tables the numba row kernels iterate over
(softmax_cpu_rows, reshape_cpu_copy, crop_cpu_copy).

Every format of :mod:`cldnn_py.layout` is additively separable: the flat physical index of logical element
(i_0, ..., i_{r-1}) is ``base + Σ_d offs[d][i_d]`` (``base`` = the lower padding times the pitches). For a plain
format ``offs[d]`` is ``arange(n_d) · pitch_d``; for b_fs_yx_fsv16 the feature axis is ``(i // 16) · slice pitch +
i % 16``, not a stride. A kernel merges the trailing axes whose offsets are strides into one *run* (elements
``base + j · stride``) and enumerates the remaining axes through a table of base offsets built once, in numpy, at
``make_fn`` time: a padded, permuted or blocked tensor costs one table entry per run, never a per-element index.
"""

from __future__ import annotations

import numpy as np

from cldnn_py.layout import DIMS, Layout


def axis_offsets(lay: Layout) -> list[np.ndarray]:
    """int64 offsets (elements) of each logical axis of ``lay`` (rank 1-6, any format), one array of length
    ``shape[d]`` per axis d; rank 5-6 (unpadded bfyx) are C-order strides. Add
    :func:`~.cpu_layout.layout_offset` (logical element 0)."""
    if lay.rank > 4:
        strides = np.cumprod((1,) + lay.shape[:0:-1])[::-1]
        return [np.arange(n, dtype=np.int64) * int(s) for n, s in zip(lay.shape, strides)]
    p = lay.pitches
    blk = lay.format.block
    offs = []
    for d, n in zip(DIMS, lay.shape):
        i = np.arange(n, dtype=np.int64)
        offs.append((i // blk[1]) * p[d] + i % blk[1] if blk is not None and blk[0] == d else i * p[d])
    return offs


def stride_of(offs: np.ndarray) -> int | None:
    """The stride s with ``offs[i] == i · s`` (0 for a single element), or None when the axis is no stride."""
    if len(offs) < 2:
        return 0
    s = int(offs[1] - offs[0])
    return s if np.array_equal(offs, np.arange(len(offs), dtype=np.int64) * s) else None


def inner_run(shape: tuple[int, ...], *offs: list[np.ndarray]) -> tuple[int, int, tuple[int, ...]]:
    """The longest run of trailing axes that is one stride in every tensor of ``offs`` (per-axis offsets of the
    same logical ``shape``): (first axis of the run, its element count, each tensor's stride). Axes of size 1
    join freely; with no non-unit axis the run is (0, 1, zeros)."""
    run, strides, first = 1, [0] * len(offs), len(shape)
    for d in range(len(shape) - 1, -1, -1):
        if shape[d] > 1:
            s = [stride_of(o[d]) for o in offs]
            if run == 1:
                known = [v for v in s if v is not None]
                if len(known) < len(s):
                    break
                strides = known
            elif any(v != st * run for v, st in zip(s, strides)):
                break
            run *= shape[d]
        first = d
    return first, run, tuple(strides)


def offset_table(offs: list[np.ndarray], axes: range | list[int], base: int) -> np.ndarray:
    """int64 base offsets of every multi-index over ``axes`` (C order; the other axes at index 0):
    ``base + Σ_d offs[d][i_d]``."""
    t = np.full(1, base, np.int64)
    for d in axes:
        t = (t[:, None] + offs[d][None, :]).reshape(-1)
    return t


def run_table(shape: tuple[int, ...], offs: list[np.ndarray], base: int, length: int) -> tuple[np.ndarray, int]:
    """Row starts for a copy in logical (row-major) order in runs of ``length`` elements, and the stride inside a
    run: ``(starts, stride)`` with logical element k · length + j at ``starts[k] + j · stride``. ``length`` must
    divide the tensor's :func:`inner_run` (``gcd`` with the other tensor's run does)."""
    first, run, (stride,) = inner_run(shape, offs)
    lead = offset_table(offs, range(first), base)
    steps = np.arange(run // length, dtype=np.int64) * (length * stride)
    return (lead[:, None] + steps[None, :]).reshape(-1), stride

