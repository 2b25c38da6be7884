"""Gather's coordinate map (numpy.take along an axis), shared by gather_ref and gather_gpu_wg."""

from __future__ import annotations

from .nd_index import MAX_RANK


def gather_coords(data_rank: int, index_rank: int, axis: int) -> tuple[list[str], list[str]]:
    """The data and index coordinates (six each) as output coordinate names ``o<k>``, ``idx`` or ``0``.

    Output coordinates are ``(o_0..o_{a-1}, o_a..o_{a+q-1}, o_{a+q}..)``: the data's dimensions before the axis,
    the index tensor's q dimensions, the data's dimensions after the axis (numpy.take along ``axis``).
    """
    data = ["0"] * MAX_RANK
    for k in range(data_rank):
        data[k] = f"o{k}" if k < axis else ("idx" if k == axis else f"o{k - 1 + index_rank}")
    index = ["0"] * MAX_RANK
    for k in range(index_rank):
        index[k] = f"o{axis + k}"
    return data, index
