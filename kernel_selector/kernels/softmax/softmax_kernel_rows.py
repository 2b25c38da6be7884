"""softmax_rows: softmax / log-softmax over contiguous rows (the trailing axes of unpadded bfyx), float8 chunks.

``softmax_ref`` gives each work-item a row too, but visits it through the N-D index macros with scalar exp: an
attention block's (1, 3, 197, 197) softmax took 2.2 ms on PoCL (19 ns per element). Here the row is contiguous,
loaded 8 floats at a time, exp on float8; one work-item per row, work-groups of one (the CPU tier's form).
"""

from __future__ import annotations

from cldnn_py.layout import DataType, Format
from cldnn_py.ops import SoftmaxAttrs

from ...common.softmax import softmax_axes
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, KernelBase
from ...params import Params, SupportedKey
from ...selector import register


@register
class SoftmaxKernelRows(KernelBase):
    """Softmax (``softmax_ref``'s semantics: y = exp(x - max) / Σ exp(x - max), or log-softmax) over the trailing
    axes of an unpadded bfyx f32 tensor of rank 1-6 (the last axis, or with ``coerce_2d`` the axes from ``axis``
    on: both contiguous rows of SM_LEN floats), output unpadded bfyx f32 of the same shape. gws = (rows,),
    lws = (1,); three passes over each row in float8 chunks (cl_kernels/softmax_rows.cl)."""

    name = "softmax_rows"
    primitive = "softmax"
    tier = "cpu"  # work-groups of one work-item

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32, bfyx, no padding."""
        f32, bfyx = frozenset({DataType.f32}), frozenset({Format.bfyx})
        return SupportedKey(input_dtypes=f32, output_dtypes=f32, input_formats=bfyx, output_formats=bfyx,
                            padded_inputs=False, padded_output=False)

    def validate(self, params: Params) -> str | None:
        """The normalized axes are the trailing ones (rows contiguous), the axis in range."""
        rank, axis = params.inputs[0].rank, int(params.attrs_as(SoftmaxAttrs).axis)
        if not -rank <= axis < rank:
            return f"axis {axis} out of range for rank {rank}"
        axes = softmax_axes(params)
        if axes != tuple(range(rank - len(axes), rank)):
            return f"normalized axes {axes} are not the trailing axes of rank {rank} (rows not contiguous)"
        return None

    def priority(self, params: Params) -> int:
        """Ahead of the reference."""
        return FORCE_PRIORITY_3

    def row_length(self, params: Params) -> int:
        """The elements of one row: the product of the normalized axes."""
        x = params.inputs[0]
        n = 1
        for a in softmax_axes(params):
            n *= x.shape[a]
        return n

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, SM_LEN (the row length) and SOFTMAX_LOG."""
        j = super().jit_constants(params)
        log = int(bool(params.attrs_as(SoftmaxAttrs).log))
        return j.update({"SM_LEN": self.row_length(params), "SOFTMAX_LOG": log})

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """gws = (rows,), lws = (1,)."""
        return (params.inputs[0].count() // self.row_length(params),), (1,)
