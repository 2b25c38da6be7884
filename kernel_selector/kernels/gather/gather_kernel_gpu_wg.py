"""gather_gpu_wg: gather_ref's element copy (rank <= 4) with explicit work-groups for GPUs (the GPU tier)."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import GatherAttrs

from ...common.gather import gather_coords
from ...common.gpu_dispatch import wg_tensor_dispatch, wg_tensor_guard, wg_tensor_validate
from ...common.nd_index import MAX_RANK, nd_jit, nd_output_coords
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, CopyKernelBase
from ...params import Params
from ...selector import register


@register
class GatherKernelGpuWg(CopyKernelBase):
    """Gather (numpy.take / ONNX Gather), GPU tier, data, indices and output of rank <= 4 (higher ranks stay with
    gather_ref): idx = indices[o_a..o_{a+q-1}] (negative + n, clamped into [0, n)), y[o] = data[o_0.., idx, ..].

    INPUT0 (data) and OUTPUT any format and padding, INPUT1 i32 indices any format. One work-item per output
    element: gws (X, Y, F * B) of the output rounded up to lws (64-256 work-items, x fastest), guarded by
    ``WG_OUT_OF_RANGE``. No local memory. f32, i32, i8, u8 copied in their own type.
    """

    name = "gather_gpu_wg"
    primitive = "gather"
    n_data_inputs = 1
    tier = "gpu"

    def validate(self, params: Params) -> str | None:
        """i32 indices, the gathered shape is the output's, ranks <= 4, a fitting work-group."""
        x, idx = params.inputs[0], params.inputs[1]
        a = params.attrs_as(GatherAttrs)
        if idx.dtype != DataType.i32:
            return f"indices must be i32, got {idx.dtype.value}"
        if not -x.rank <= int(a.axis) < x.rank:
            return f"axis {a.axis} out of range for rank {x.rank}"
        ax = int(a.axis) % x.rank
        mid = () if a.scalar_index else idx.shape
        shape = (x.shape[:ax] + mid + x.shape[ax + 1:]) or (1,)
        if shape != params.output.shape:
            return f"gather of {x.shape} by {idx.shape} on axis {ax} is {shape}, output is {params.output.shape}"
        return (wg_tensor_validate(x, params.caps) or wg_tensor_validate(idx, params.caps)
                or wg_tensor_validate(params.output, params.caps))

    def priority(self, params: Params) -> int:
        """Ahead of gather_ref in the GPU tier."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, the guard, N-D indexing, ``DATA_COORD_0..5``, ``INDEX_COORD_0..5``, ``AXIS_SIZE``."""
        j = super().jit_constants(params).update(wg_tensor_guard("OUTPUT"))
        x, idx = params.inputs
        j.update(nd_jit("INPUT0", x)).update(nd_jit("INPUT1", idx)).update(nd_jit("OUTPUT", params.output))
        j.update(nd_output_coords())
        a = params.attrs_as(GatherAttrs)
        ax = int(a.axis) % x.rank
        data, index = gather_coords(x.rank, 0 if a.scalar_index else idx.rank, ax)
        for k in range(MAX_RANK):
            j.add(f"DATA_COORD_{k}", data[k]).add(f"INDEX_COORD_{k}", index[k])
        return j.add("AXIS_SIZE", x.shape[ax])

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (X, Y, F * B) of the output rounded up to lws (wg_dispatch)."""
        return wg_tensor_dispatch(params.output, params.caps)
