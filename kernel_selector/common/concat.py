"""The concatenation axis as a dims4 index, shared by the OpenCL concatenation kernels."""

from __future__ import annotations

from cldnn_py.ops import ConcatenationAttrs

from ..params import Params


def concat_axis4(params: Params) -> int:
    """The dims4 index (0 b, 1 f, 2 y, 3 x) of the logical ``axis`` (negative counts from the end of the rank)."""
    return int(params.attrs_as(ConcatenationAttrs).axis) % params.output.rank
