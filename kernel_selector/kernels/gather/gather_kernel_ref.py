"""gather_ref: one work-item per output element; data of rank 1-6 in any format (rank <= 4), i32 indices."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import GatherAttrs

from ...common.gather import gather_coords
from ...common.nd_index import MAX_RANK, nd_check, nd_jit, nd_output_coords
from ...jitter import JitConstants
from ...kernel_base import CopyKernelBase
from ...params import Params
from ...selector import register


@register
class GatherKernelRef(CopyKernelBase):
    """Reference gather (clDNN ``gather_ref``, numpy.take / ONNX Gather): ``idx = indices[o_a..o_{a+q-1}]``,
    negative indices count from the end (``idx + n``) and are then clamped into [0, n) (out-of-range indices are
    an error in ONNX; the clamp keeps the read inside the buffer), ``y[o] = data[o_0.., idx, ..]``.

    INPUT0 (data) and OUTPUT in any format and padding (rank <= 4; unpadded bfyx for rank 5-6); INPUT1 (indices)
    is i32 in any format. ``scalar_index`` drops the axis (q = 0). gws = (x, y, f * b) of the output's dims4.
    Values are copied in their own type; f32, f16, i32, i8, u8.
    """

    name = "gather_ref"
    primitive = "gather"
    n_data_inputs = 1

    def validate(self, params: Params) -> str | None:
        """i32 indices; the output's shape is data[:a] + indices + data[a+1:]."""
        x, idx = params.inputs[0], params.inputs[1]
        if idx.dtype != DataType.i32:
            return f"indices must be i32, got {idx.dtype.value}"
        if not -x.rank <= int(params.attrs_as(GatherAttrs).axis) < x.rank:
            return f"axis {params.attrs_as(GatherAttrs).axis} out of range for rank {x.rank}"
        ax = int(params.attrs_as(GatherAttrs).axis) % x.rank
        mid = () if params.attrs_as(GatherAttrs).scalar_index else idx.shape
        shape = (x.shape[:ax] + mid + x.shape[ax + 1:]) or (1,)
        if shape != params.output.shape:
            return f"gather of {x.shape} by {idx.shape} on axis {ax} is {shape}, output is {params.output.shape}"
        return nd_check(params.inputs, params.output)

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, N-D indexing, ``DATA_COORD_0..5``, ``INDEX_COORD_0..5``, ``AXIS_SIZE``."""
        j = super().jit_constants(params)
        x, idx = params.inputs
        j.update(nd_jit("INPUT0", x)).update(nd_jit("INPUT1", idx)).update(nd_jit("OUTPUT", params.output))
        j.update(nd_output_coords())
        ax = int(params.attrs_as(GatherAttrs).axis) % x.rank
        q = 0 if params.attrs_as(GatherAttrs).scalar_index else idx.rank
        data, index = gather_coords(x.rank, q, ax)
        for k in range(MAX_RANK):
            j.add(f"DATA_COORD_{k}", data[k]).add(f"INDEX_COORD_{k}", index[k])
        return j.add("AXIS_SIZE", x.shape[ax])
