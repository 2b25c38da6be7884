"""Index helpers for kernels that reduce a tensor over a set of logical axes (softmax, mvn).

A tensor of logical rank 1-6 is addressed by six coordinates ``c0 .. c5`` (its shape padded with trailing ones)
through ``NAME_IDX6`` of :mod:`kernel_selector.common.nd_index` (any format and padding for rank <= 4; plain
unpadded bfyx for rank 5-6). The axes split the coordinates in two groups:

- the *outer* ones, enumerated by the work-items: ``OUTER_COORDS(g)`` sets them from a flat index
  g in [0, ``OUTER_SIZE``), row-major over the outer axes;
- the *reduced* ones, enumerated by the loop inside a work-item: ``REDUCE_COORDS(r)`` sets them from
  r in [0, ``REDUCE_SIZE``), row-major over the reduced axes (so a contiguous range of axes is read in
  memory order for bfyx).

Both macros are statement lists assigning the ``int c0 .. c5`` the kernel declares (initialized to 0); axes of
size 1 are skipped, so a reduction over the last axis costs a single assignment per element.
"""

from __future__ import annotations

from cldnn_py.layout import Layout

from ..jitter import JitConstants
from .nd_index import MAX_RANK, dims6


def normalize_axes(axes: list[int] | tuple[int, ...], rank: int) -> tuple[int, ...]:
    """Sorted, unique, non-negative axes of a rank-``rank`` tensor; raises ValueError for an axis out of range."""
    out = set()
    for a in axes:
        a = int(a)
        if not -rank <= a < rank:
            raise ValueError(f"axis {a} out of range for rank {rank}")
        out.add(a % rank)
    return tuple(sorted(out))


def _coords(axes: list[int], dims: tuple[int, ...], arg: str) -> str:
    """Statements c<a> = (arg) / stride % size for the given axes, row-major (the last axis fastest)."""
    stmts = []
    stride = 1
    for a in reversed(axes):
        size = dims[a]
        if size > 1:
            stmts.append(f"c{a} = ({arg}) / {stride} % {size};" if stride > 1 else f"c{a} = ({arg}) % {size};")
        stride *= size
    return " ".join(reversed(stmts))


def reduce_jit(layout: Layout, axes: tuple[int, ...]) -> JitConstants:
    """``OUTER_SIZE``, ``REDUCE_SIZE``, ``OUTER_COORDS(g)`` and ``REDUCE_COORDS(r)`` for reducing ``layout``
    (the kernel's input) over the non-negative logical ``axes``."""
    d = dims6(layout)
    red = sorted(axes)
    outer = [a for a in range(MAX_RANK) if a not in red]
    outer_size = 1
    for a in outer:
        outer_size *= d[a]
    red_size = 1
    for a in red:
        red_size *= d[a]
    return JitConstants({"OUTER_SIZE": outer_size, "REDUCE_SIZE": red_size,
                         "OUTER_COORDS(g)": _coords(outer, d, "g"), "REDUCE_COORDS(r)": _coords(red, d, "r")})
