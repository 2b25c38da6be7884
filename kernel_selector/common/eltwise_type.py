"""Whether an eltwise computes in int or float, shared by the eltwise reference kernels of both engines."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import EltwiseAttrs

from ..params import Params


def compute_type(params: Params) -> str:
    """``int`` when every input and the output are i32 and no coefficient is given (exact integer math, C
    semantics: div truncates toward zero, x / 0 gives 0 instead of a trap; pow by repeated squaring);
    ``float`` otherwise."""
    ints = all(x.dtype == DataType.i32 for x in [*params.inputs, params.output])
    return "int" if ints and params.attrs_as(EltwiseAttrs).coefficients is None else "float"
