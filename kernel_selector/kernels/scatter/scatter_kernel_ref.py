"""scatter_ref: one work-item per output element walks every update and applies those aimed at its offset."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import ScatterAttrs

from ...common.nd_index import nd_check, nd_jit, nd_output_coords
from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import Params, SupportedKey
from ...selector import register

_TYPES = frozenset({DataType.f32, DataType.f16, DataType.i32})
_COMBINE = {"none": "(u)", "add": "(acc + (u))", "mul": "(acc * (u))", "max": "max(acc, (u))", "min": "min(acc, (u))"}


@register
class ScatterKernelRef(KernelBase):
    """Reference scatter (ONNX ScatterElements / ScatterND on flat offsets): race-free by construction, since each
    work-item owns one output element: it reads the data value, then walks all U updates in row-major order and
    applies every one whose flat offset equals its own (``none``: the last one wins; add / mul / max / min in
    order, so the result is deterministic). O(output × U) reads of the indices: meant for the small updates real
    models scatter (cache updates, masks); a sort-based kernel would serve large ones.

    INPUT0 (data) and OUTPUT f32, f16 (storage: combined in float, rounded once when stored) or i32 in any format
    and padding (rank <= 4; unpadded bfyx for 5-6), INPUT1 (indices, i32) and INPUT2 (updates) in any format.
    gws = (x, y, f * b) of the output's dims4.
    """

    name = "scatter_ref"
    primitive = "scatter"

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 / f16 / i32 data and updates, i32 indices, any format, padding allowed."""
        return SupportedKey(input_dtypes=_TYPES, output_dtypes=_TYPES)

    def validate(self, params: Params) -> str | None:
        """i32 indices, updates of the indices' count, the N-D helpers' rank rules."""
        x, idx, upd = params.inputs
        if idx.dtype != DataType.i32 or idx.count() != upd.count():
            return f"indices must be i32 of the updates' count, got {idx.dtype.value} x {idx.count()}"
        return nd_check(params.inputs, params.output)

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, N-D indexing of all four, ``SCATTER_COMBINE(acc, u)``, ``SCATTER_COUNT``."""
        j = super().jit_constants(params)
        for name, lay in (("INPUT0", params.inputs[0]), ("INPUT1", params.inputs[1]), ("INPUT2", params.inputs[2]),
                          ("OUTPUT", params.output)):
            j.update(nd_jit(name, lay))
        j.update(nd_output_coords())
        red = str(params.attrs_as(ScatterAttrs).reduction)
        return j.update({"SCATTER_COMBINE(acc, u)": _COMBINE[red], "SCATTER_COUNT": params.inputs[1].count()})
