"""OpenCL index text of numpy broadcasting (eltwise_ref, scale_ref)."""

from __future__ import annotations

import math


def broadcast_get_index(name: str, shape: tuple[int, ...], out_rank: int) -> str:
    """``NAME_GET_INDEX(...)`` of the element of a tensor of logical ``shape`` that numpy broadcasting maps to the
    output element (b, f, y, x) of an output of rank ``out_rank``.

    The trailing dimensions are aligned: input dimension j pairs with output dimension j + out_rank - len(shape)
    (output dimensions are b, f, y, x in that order, the unused ones 0); a dimension of size 1 reads index 0.
    The result uses the names ``b``, ``f``, ``y``, ``x``. An output of rank 5-6 folds its trailing dimensions into
    x (``Layout.dims4``), so there only an input of the output's rank (the caller checks it has the output's shape)
    or of one element can be indexed. Raises ValueError when ``shape`` has more dimensions than the output, or
    cannot be indexed in a rank 5-6 output.
    """
    off = out_rank - len(shape)
    if off < 0:
        raise ValueError(f"{name}: cannot broadcast shape {shape} to an output of rank {out_rank}")
    if out_rank > 4:
        if math.prod(shape) == 1:
            return f"{name}_GET_INDEX(0, 0, 0, 0)"
        if off == 0:
            return f"{name}_GET_INDEX((b), (f), (y), (x))"
        raise ValueError(f"{name}: cannot broadcast shape {shape} to an output of rank {out_rank}")
    coords = ["0"] * 4
    for j, size in enumerate(shape):
        if size > 1:
            coords[j] = f"({'bfyx'[j + off]})"
    return f"{name}_GET_INDEX({', '.join(coords)})"
