"""strided_slice_ref: one work-item per output element; rank 1-6, any format and padding (rank <= 4)."""

from __future__ import annotations

from cldnn_py.ops import StridedSliceAttrs, slice_ranges

from ...common.nd_index import MAX_RANK, nd_check, nd_jit, nd_output_coords
from ...jitter import JitConstants
from ...kernel_base import CopyKernelBase
from ...params import Params
from ...selector import register


@register
class StridedSliceKernelRef(CopyKernelBase):
    """Reference strided slice (clDNN ``strided_slice_ref``): ``y[o] = x[START_d + o_d * STEP_d]`` per dimension.

    ``START_d``/``STEP_d`` are the normalized slice of every dimension (:func:`slice_ranges`: Python / ONNX
    semantics, clamped; steps may be negative); dimensions beyond the rank have start 0, step 1. INPUT0 and
    OUTPUT in any format, possibly padded (rank <= 4; unpadded bfyx for rank 5-6). gws = (x, y, f * b) of the
    output's dims4. The value is copied in its own type; f32, f16, i32, i8, u8.
    """

    name = "strided_slice_ref"
    primitive = "strided_slice"

    def validate(self, params: Params) -> str | None:
        """The normalized slice must have the output's shape."""
        x = params.inputs[0]
        a = params.attrs_as(StridedSliceAttrs)
        if len(a.begin) != x.rank:
            return f"begin has {len(a.begin)} entries for input rank {x.rank}"
        shape = tuple(len(r) for r in slice_ranges(a.begin, a.end, a.steps, x.shape))
        if shape != params.output.shape:
            return f"slice of {x.shape} has shape {shape}, output is {params.output.shape}"
        return nd_check(params.inputs, params.output)

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, N-D indexing, ``START_0..5`` and ``STEP_0..5``."""
        j = super().jit_constants(params)
        x = params.inputs[0]
        j.update(nd_jit("INPUT0", x)).update(nd_jit("OUTPUT", params.output)).update(nd_output_coords())
        a = params.attrs_as(StridedSliceAttrs)
        ranges = slice_ranges(a.begin, a.end, a.steps, x.shape)
        ranges += [range(0, 1, 1)] * (MAX_RANK - len(ranges))
        for d, r in enumerate(ranges):
            j.add(f"START_{d}", r.start).add(f"STEP_{d}", r.step)
        return j
