"""reshape_ref: one work-item per output element; reads any input format/padding, writes the bfyx output."""

from __future__ import annotations

from ...kernel_base import CopyKernelBase
from ...selector import register


@register
class ReshapeKernelRef(CopyKernelBase):
    """Reference reshape (clDNN ``reshape_ref``): the same elements in logical row-major order, new shape.

    INPUT0 is any format, possibly padded, logical rank 1-4; OUTPUT is bfyx of the new shape (rank 1-4). Each
    work-item (gws = (x, y, f * b) of the output's dims4) turns its output coordinate into the linear logical
    (row-major NCHW) index and that index back into an input coordinate with the input's logical sizes, then
    copies the element through INPUT0_GET_INDEX / OUTPUT_GET_INDEX. A rank-r shape is 4-D with trailing ones
    (``Layout.dims4``), which leaves the row-major linear index unchanged, so the 4-D arithmetic is exact for
    every rank. The value is copied in its own type (exact for integers); data types f32, f16, i32, i8, u8.
    """

    name = "reshape_ref"
    primitive = "reshape"
