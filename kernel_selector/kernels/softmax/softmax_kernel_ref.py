"""softmax_ref: numerically stable softmax / log-softmax over one axis or the trailing axes, one work-item per
row, any data format, ranks 1-6."""

from __future__ import annotations

from cldnn_py.ops import SoftmaxAttrs

from ...common.nd_index import nd_check, nd_jit
from ...common.nd_reduce import reduce_jit
from ...common.softmax import softmax_axes
from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import Params
from ...selector import register


@register
class SoftmaxKernelRef(KernelBase):
    """Reference softmax (clDNN ``softmax_gpu_ref``): y = exp(x - max) / Σ exp(x - max) over the row, or with
    ``log`` y = x - max - log Σ exp(x - max) (log-softmax).

    INPUT0 of rank 1-6 (any format up to rank 4, unpadded bfyx for rank 5-6), output the same shape in any format.
    A row is the set of elements that differ only in the normalized axes (see :func:`softmax_axes`); its elements
    are visited through ``REDUCE_COORDS`` and ``INPUT0_IDX6`` (common/nd_reduce.py). gws = the number of rows;
    each work-item makes three passes over its row (max, sum of exponentials, normalize).
    """

    name = "softmax_ref"
    primitive = "softmax"

    def validate(self, params: Params) -> str | None:
        """The axis must lie in [-rank, rank); ranks 5-6 must be plain unpadded bfyx."""
        rank, axis = params.inputs[0].rank, int(params.attrs_as(SoftmaxAttrs).axis)
        if not -rank <= axis < rank:
            return f"axis {axis} out of range for rank {rank}"
        return nd_check(params.inputs, params.output)

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, their IDX6 macros, the row enumeration (OUTER_/REDUCE_ macros) and SOFTMAX_LOG."""
        j = super().jit_constants(params)
        j.update(nd_jit("INPUT0", params.inputs[0]))
        j.update(nd_jit("OUTPUT", params.output))
        j.update(reduce_jit(params.inputs[0], softmax_axes(params)))
        j.add("SOFTMAX_LOG", bool(params.attrs_as(SoftmaxAttrs).log))
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """gws = (number of rows,); lws left to the driver."""
        x = params.inputs[0]
        rows = x.count()
        for a in softmax_axes(params):
            rows //= x.shape[a]
        return (rows,), None
