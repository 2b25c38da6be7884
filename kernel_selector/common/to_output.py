"""``TO_OUTPUT(v)``: the data type conversion of the reorder kernels (ONNX Cast and format reorders), in one place."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import ReorderAttrs

from ..params import FLOATS, Params


def to_output_jit(params: Params) -> str:
    """The body of ``TO_OUTPUT(v)`` for a reorder's Params: ``v`` (a loaded value, ``INPUT0_VAL_TYPE``) as the
    value to store (``OUTPUT_VAL_TYPE``). To a float type (f32, or f16 storage: stored rounding to nearest even): a
    cast. To an integer type: round to nearest even and saturate (``convert_<t>_sat_rte``), or for
    ``convert_mode`` "truncate" (ONNX Cast) round toward zero saturating (float input) or a C cast (integer input);
    "bool": 1 where the value is non-zero, else 0."""
    out = params.output.dtype
    mode = params.attrs_as(ReorderAttrs).convert_mode
    if mode == "bool":
        return "((OUTPUT_VAL_TYPE)((v) != 0))"
    if out in FLOATS:
        return "((float)(v))" if out == DataType.f16 else "((OUTPUT_TYPE)(v))"
    if mode == "truncate":
        return ("CAT(convert_, CAT(OUTPUT_TYPE, _sat_rtz))(v)" if params.inputs[0].dtype in FLOATS
                else "((OUTPUT_TYPE)(v))")
    return "CONVERT_TO(OUTPUT_TYPE, v)"
