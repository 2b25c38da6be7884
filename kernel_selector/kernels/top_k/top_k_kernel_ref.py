"""top_k_ref: one work-item per input element counts the elements along the axis that come before it (its rank)
and, when the rank is below k, writes its value or index to output slot ``rank``; any input format, rank 1-6."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import TopKAttrs

from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import Params, SupportedKey
from ...selector import register

RANK6 = 6


@register
class TopKKernelRef(KernelBase):
    """Reference top-k along one axis by rank counting (a selection without a sort; O(n²) comparisons per row of n
    elements along the axis, all rows and elements in parallel).

    INPUT0 f32 or i32 of logical rank 1-6 in any format (rank 5-6: unpadded bfyx), possibly padded; OUTPUT the
    values (the input's type) or the i32 indices, bfyx, the axis of size k. gws = (x, y, f * b) of the INPUT's dims4:
    each work-item turns its input coordinate into a 6-d coordinate (TOPK_IN_SIZES), walks the TOPK_AXIS_SIZE
    elements of its row and counts those that precede it: a better value (larger with TOPK_LARGEST, smaller
    otherwise; any number before a NaN) or an equal one (NaN equals NaN here) at a lower index. Ranks are a
    permutation of 0..n-1, so each of the k output slots is written exactly once. Order: numpy's stable argsort
    (ONNX TopK, sorted=1).
    """

    name = "top_k_ref"
    primitive = "top_k"

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 / i32 input, f32 / i32 output, any input format, padding allowed."""
        return SupportedKey(input_dtypes=frozenset({DataType.f32, DataType.i32}),
                            output_dtypes=frozenset({DataType.f32, DataType.i32}))

    def validate(self, params: Params) -> str | None:
        """The axis in [-rank, rank), 1 <= k <= the axis size."""
        a = params.attrs_as(TopKAttrs)
        x = params.inputs[0]
        if not -x.rank <= int(a.axis) < x.rank:
            return f"axis {a.axis} out of range for rank {x.rank}"
        n = x.shape[int(a.axis) % x.rank]
        return None if 1 <= int(a.k) <= n else f"k {a.k} not in [1, {n}]"

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """One work-item per input element: (x, y, f * b) of the input's dims4."""
        b, f, y, x = params.inputs[0].dims4
        return (x, y, f * b), None

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus TOPK_IN_SIZES, TOPK_OUT_SIZES (6 entries each), TOPK_AXIS, TOPK_AXIS_SIZE, TOPK_LARGEST,
        TOPK_INDICES (write indices instead of values)."""
        j = super().jit_constants(params)
        a = params.attrs_as(TopKAttrs)
        x = params.inputs[0]
        ax = int(a.axis) % x.rank
        sizes = list(x.shape) + [1] * (RANK6 - x.rank)
        out = [int(a.k) if i == ax else n for i, n in enumerate(sizes)]
        return j.update({"TOPK_IN_SIZES": ", ".join(map(str, sizes)), "TOPK_OUT_SIZES": ", ".join(map(str, out)),
                         "TOPK_AXIS": ax, "TOPK_AXIS_SIZE": sizes[ax], "TOPK_LARGEST": int(bool(a.largest)),
                         "TOPK_INDICES": int(a.output == "indices")})
