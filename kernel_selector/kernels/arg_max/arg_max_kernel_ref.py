"""arg_max_ref: one work-item per output index looping along the axis; any input format, rank 1-6, i32 output."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import ArgMaxAttrs

from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import Params, SupportedKey
from ...selector import register

RANK6 = 6


@register
class ArgMaxKernelRef(KernelBase):
    """Reference arg max / arg min along one axis (clDNN ``arg_max_min_gpu_ref`` with top_k = 1).

    INPUT0 f32 of logical rank 1-6 in any format (rank 5-6: unpadded bfyx), possibly padded; OUTPUT i32, any
    format. Each work-item (gws = (x, y, f * b) of the output's dims4) turns its output coordinate into the linear
    row-major index, splits it over the input sizes with the axis set to 1 (ARG_KEEP_SIZES, 6 entries) into a 6-d
    base coordinate, then walks ARG_AXIS_SIZE elements along axis ARG_AXIS. Reads go through
    INPUT0_GET_INDEX(b, f, y, x) with x = row-major index of dimensions 3..5 (``Layout.dims4`` folding).
    Comparison (numpy.argmax / ONNX ArgMax): ties keep the first index unless ARG_SELECT_LAST; a NaN beats
    every number. ARG_MODE_MIN flips the comparison (ArgMin).
    """

    name = "arg_max_ref"
    primitive = "arg_max"

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 input, i32 output, any format, padding allowed."""
        return SupportedKey(output_dtypes=frozenset({DataType.i32}))

    def validate(self, params: Params) -> str | None:
        """The axis must lie in [-rank, rank)."""
        rank, axis = params.inputs[0].rank, int(params.attrs_as(ArgMaxAttrs).axis)
        return None if -rank <= axis < rank else f"axis {axis} out of range for rank {rank}"

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus ARG_KEEP_SIZES, ARG_AXIS, ARG_AXIS_SIZE, IN_D4, IN_D5, ARG_SELECT_LAST, ARG_MODE_MIN."""
        j = super().jit_constants(params)
        x = params.inputs[0]
        ax = int(params.attrs_as(ArgMaxAttrs).axis) % x.rank
        sizes = list(x.shape) + [1] * (RANK6 - x.rank)
        keep = [1 if i == ax else n for i, n in enumerate(sizes)]
        return j.update({"ARG_KEEP_SIZES": ", ".join(map(str, keep)), "ARG_AXIS": ax,
                         "ARG_AXIS_SIZE": sizes[ax], "IN_D4": sizes[4], "IN_D5": sizes[5],
                         "ARG_SELECT_LAST": int(bool(params.attrs_as(ArgMaxAttrs).select_last_index)),
                         "ARG_MODE_MIN": int(params.attrs_as(ArgMaxAttrs).mode == "min")})
