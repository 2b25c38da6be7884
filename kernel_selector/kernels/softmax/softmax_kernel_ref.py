"""softmax_ref: numerically stable softmax along any axis, one work-item per row, any data format."""

from __future__ import annotations

from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import Params
from ...selector import register


def softmax_axis4(params: Params) -> int:
    """The dims4 index (0 b, 1 f, 2 y, 3 x) of the primitive's logical ``axis`` (negative counts from the end of
    the logical rank; trailing padded dimensions of size 1 come after it)."""
    rank = params.inputs[0].rank
    return int(params.attrs["axis"]) % rank


@register
class SoftmaxKernelRef(KernelBase):
    """Reference softmax (clDNN ``softmax_gpu_ref``): y = exp(x - max) / Σ exp(x - max) along one axis.

    INPUT0 of rank 1-4 in any format, output the same layout. Logical axis ``a`` of a rank-r tensor is dims4
    index ``a mod r``. gws = the three other dims4 sizes; each work-item makes three passes over its row of
    SOFTMAX_AXIS_SIZE elements (max, sum of exponentials, normalize).
    """

    name = "softmax_ref"
    primitive = "softmax"

    def validate(self, params: Params) -> str | None:
        """The axis must lie in [-rank, rank)."""
        rank, axis = params.inputs[0].rank, int(params.attrs["axis"])
        return None if -rank <= axis < rank else f"axis {axis} out of range for rank {rank}"

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus SOFTMAX_AXIS (dims4 index) and SOFTMAX_AXIS_SIZE."""
        j = super().jit_constants(params)
        ax = softmax_axis4(params)
        return j.update({"SOFTMAX_AXIS": ax, "SOFTMAX_AXIS_SIZE": params.inputs[0].dims4[ax]})

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """gws = the dims4 sizes other than the axis, outermost first; lws left to the driver."""
        ax = softmax_axis4(params)
        d = params.output.dims4
        others = tuple(s for i, s in enumerate(d) if i != ax)
        return others, None
