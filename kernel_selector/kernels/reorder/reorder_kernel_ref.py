"""reorder_ref: any format and data type to any other, one work-item per element."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import ReorderAttrs

from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import Params, SupportedKey
from ...selector import register

_ALL = frozenset({DataType.f32, DataType.i32, DataType.i8, DataType.u8})


@register
class ReorderKernelRef(KernelBase):
    """Reference reorder (clDNN ``reorder_data``): reads INPUT0_GET_INDEX, converts, writes OUTPUT_GET_INDEX.

    Float → integer rounds to nearest even and saturates (``convert_<t>_sat_rte``); other conversions are casts.
    ``convert_mode`` "truncate" (ONNX Cast): float → integer rounds toward zero, saturating (``_sat_rtz``),
    integer → integer is a C cast (wraps); "bool": 1 where the value is non-zero, else 0.
    """

    name = "reorder_ref"
    primitive = "reorder"

    def supported_key(self) -> SupportedKey:
        """f32, i32, i8, u8 in and out; any format."""
        return SupportedKey(input_dtypes=_ALL, output_dtypes=_ALL)

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus ``TO_OUTPUT(v)``."""
        j = super().jit_constants(params)
        out = params.output.dtype
        mode = params.attrs_as(ReorderAttrs).convert_mode
        if mode == "bool":
            conv = "((OUTPUT_TYPE)((v) != 0))"
        elif out == DataType.f32:
            conv = "((OUTPUT_TYPE)(v))"
        elif mode == "truncate":
            conv = ("CAT(convert_, CAT(OUTPUT_TYPE, _sat_rtz))(v)" if params.inputs[0].dtype == DataType.f32
                    else "((OUTPUT_TYPE)(v))")
        else:
            conv = "CONVERT_TO(OUTPUT_TYPE, v)"
        return j.add("TO_OUTPUT(v)", conv)
