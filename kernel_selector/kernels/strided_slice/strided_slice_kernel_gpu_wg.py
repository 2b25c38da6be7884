"""strided_slice_gpu_wg: strided_slice_ref's copy (rank <= 4) with explicit work-groups for GPUs (the GPU tier)."""

from __future__ import annotations

from cldnn_py.ops import StridedSliceAttrs, slice_ranges

from ...common.gpu_dispatch import COPY_MAP_TEMPLATE, copy_map_jit, wg_tensor_dispatch, wg_tensor_validate
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, CopyKernelBase, load_template
from ...params import Params
from ...selector import register


@register
class StridedSliceKernelGpuWg(CopyKernelBase):
    """Strided slice (Python / ONNX Slice semantics, :func:`slice_ranges`), GPU tier, rank 1-4 (rank 5-6 stay with
    strided_slice_ref): y[o] = x[start_d + o_d * step_d], steps may be negative.

    INPUT0 and OUTPUT any format, possibly padded. Shared template ``copy_map_gpu_wg`` with IN_* = start + o * step
    (int arithmetic). One work-item per output element: gws (X, Y, F * B) of the output rounded up to lws (64-256
    work-items, x fastest), guarded by ``WG_OUT_OF_RANGE``. No local memory. f32, f16, i32, i8, u8.
    """

    name = "strided_slice_gpu_wg"
    primitive = "strided_slice"
    tier = "gpu"

    def validate(self, params: Params) -> str | None:
        """Rank <= 4, the normalized slice has the output's shape, a fitting work-group."""
        x = params.inputs[0]
        a = params.attrs_as(StridedSliceAttrs)
        if len(a.begin) != x.rank:
            return f"begin has {len(a.begin)} entries for input rank {x.rank}"
        shape = tuple(len(r) for r in slice_ranges(a.begin, a.end, a.steps, x.shape))
        if shape != params.output.shape:
            return f"slice of {x.shape} has shape {shape}, output is {params.output.shape}"
        return wg_tensor_validate(x, params.caps) or wg_tensor_validate(params.output, params.caps)

    def priority(self, params: Params) -> int:
        """Ahead of strided_slice_ref in the GPU tier."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, the guard and IN_* = start + output coordinate * step per dimension."""
        x = params.inputs[0]
        a = params.attrs_as(StridedSliceAttrs)
        ranges = list(slice_ranges(a.begin, a.end, a.steps, x.shape)) + [range(0, 1, 1)] * (4 - x.rank)
        c = [f"{r.start} + (int){v} * ({r.step})" for r, v in zip(ranges, "bfyx")]
        return super().jit_constants(params).update(copy_map_jit((c[0], c[1], c[2], c[3])))

    def make_source(self, jit: JitConstants, template: str | None = None) -> tuple[str, str]:
        """The shared ``copy_map_gpu_wg`` template."""
        return super().make_source(jit, template if template is not None else load_template(COPY_MAP_TEMPLATE))

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (X, Y, F * B) of the output rounded up to lws (wg_dispatch)."""
        return wg_tensor_dispatch(params.output, params.caps)
