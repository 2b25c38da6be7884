"""reduce_ref: one work-item per output element looping over the reduced elements; any format, rank 1-6."""

from __future__ import annotations

from cldnn_py.ops import ReduceAttrs, ReduceMode, normalize_axes

from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import Params
from ...selector import register

RANK6 = 6


def split_sizes(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """(kept sizes, reduced sizes) of ``shape`` padded with trailing ones to rank 6: a reduced axis has kept size
    1 and its own size in the reduced list, a kept axis the other way round."""
    s = list(shape) + [1] * (RANK6 - len(shape))
    keep = [1 if i in axes else n for i, n in enumerate(s)]
    red = [n if i in axes else 1 for i, n in enumerate(s)]
    return keep, red


@register
class ReduceKernelRef(KernelBase):
    """Reference reduce (clDNN ``reduce_gpu_ref``): mean, sum, max, min, prod over any set of axes.

    INPUT0 of logical rank 1-6 in any format (rank 5-6: unpadded bfyx), possibly padded; OUTPUT of any format.
    The output's logical row-major order is the order of the kept input dimensions (removing size-1 axes does
    not change it), so each work-item (gws = (x, y, f * b) of the output's dims4) turns its output coordinate
    into the linear index, splits that over the six kept sizes (REDUCE_KEEP_SIZES) into a base coordinate, and
    visits the REDUCE_COUNT reduced elements by splitting the loop counter over REDUCE_RED_SIZES. The 6-d input
    coordinate is read through INPUT0_GET_INDEX(b, f, y, x) with x = the row-major index of dimensions 3..5, the
    same folding ``Layout.dims4`` uses for rank 5-6. Accumulates in float; max/min propagate NaN like numpy.
    """

    name = "reduce_ref"
    primitive = "reduce"

    def validate(self, params: Params) -> str | None:
        """The axes must be distinct and in range for the input rank."""
        try:
            normalize_axes(tuple(params.attrs_as(ReduceAttrs).axes), params.inputs[0].rank)
        except ValueError as e:
            return str(e)
        return None

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus REDUCE_KEEP_SIZES, REDUCE_RED_SIZES (6 entries each), REDUCE_COUNT, IN_D4, IN_D5 and
        REDUCE_MODE_<mode>."""
        j = super().jit_constants(params)
        x = params.inputs[0]
        axes = normalize_axes(tuple(params.attrs_as(ReduceAttrs).axes), x.rank)
        keep, red = split_sizes(x.shape, axes)
        count = 1
        for n in red:
            count *= n
        mode = ReduceMode(params.attrs_as(ReduceAttrs).mode).value
        return j.update({"REDUCE_KEEP_SIZES": ", ".join(map(str, keep)),
                         "REDUCE_RED_SIZES": ", ".join(map(str, red)),
                         "REDUCE_COUNT": count, "IN_D4": keep[4] * red[4], "IN_D5": keep[5] * red[5],
                         f"REDUCE_MODE_{mode.upper()}": 1})
