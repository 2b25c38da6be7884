"""reorder_ref: any format and data type to any other, one work-item per element."""

from __future__ import annotations

from cldnn_py.layout import DataType

from ...common.to_output import to_output_jit
from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import Params, SupportedKey
from ...selector import register

_ALL = frozenset({DataType.f32, DataType.f16, DataType.i32, DataType.i8, DataType.u8})


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
        """f32, f16 (storage), i32, i8, u8 in and out; any format."""
        return SupportedKey(input_dtypes=_ALL, output_dtypes=_ALL)

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus ``TO_OUTPUT(v)``."""
        j = super().jit_constants(params)
        return j.add("TO_OUTPUT(v)", to_output_jit(params))
