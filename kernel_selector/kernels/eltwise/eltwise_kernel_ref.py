"""eltwise_ref: N inputs (N >= 2) folded left to right with numpy broadcasting; one work-item per output element."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import EltwiseAttrs, EltwiseMode
from cldnn_py.ops.elementwise import cl_eltwise

from ...common.broadcast import broadcast_get_index
from ...common.eltwise_type import compute_type
from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import Params, SupportedKey
from ...selector import register

_TYPES = frozenset({DataType.f32, DataType.f16, DataType.i32})


def _float_literal(c: float) -> str:
    """OpenCL float literal with 9 significant digits and an exponent (``2.0`` -> ``2.000000000e+00f``)."""
    return f"({c:.9e}f)"




@register
class EltwiseKernelRef(KernelBase):
    """Reference eltwise (clDNN ``eltwise_ref``): y = in0 ∘ in1 ∘ ... ∘ in(N-1), left to right.

    Modes: ``sum`` (with optional per-input coefficients: y = Σ c_i·in_i), ``sub``, ``prod``, ``div``, ``max``,
    ``min``, ``pow`` (OpenCL ``pow``, C99 semantics: a negative base with an integral exponent is defined),
    ``prelu`` (acc >= 0 ? acc : in_i * acc). Inputs may have different logical shapes and ranks as long as they
    broadcast by numpy rules to the output shape (trailing dimensions aligned, size-1 dimensions broadcast); each
    input and the output may be in any format, padded or not. Data types f32, f16 (storage: float math) and i32:
    all-i32 computes in int, anything else in float. An i32 output from float math saturates; ``pow`` of an integer
    base by a float exponent truncates toward zero like ONNX's cast of the power to the base type, except that a
    float power within 1e-6 (relative) of an integer is taken as that integer (float ``pow`` of 3 by 6 may return
    728.99994);
    a sum with coefficients rounds to nearest even. Since N varies, the jit generates the parameter list
    (``ELTWISE_INPUTS_DECL``), one ``INPUTi_BCAST_INDEX(b, f, y, x)`` per input and the whole folded expression
    (``ELTWISE_RESULT``).
    """

    name = "eltwise_ref"
    primitive = "eltwise"
    supports_fused_ops = True
    n_data_inputs = None

    def supported_key(self) -> SupportedKey:
        """OpenCL; f32, f16 and i32 inputs and output; any format, padded or not."""
        return SupportedKey(input_dtypes=_TYPES, output_dtypes=_TYPES)

    def validate(self, params: Params) -> str | None:
        """Every input broadcasts to the output's rank (for a rank 5-6 output: the output's shape or one element);
        coefficients, when given, one per input; except in ``pow`` mode, inputs of the output's data type."""
        out = params.output
        for i, x in enumerate(params.inputs):
            if x.rank > out.rank:
                return f"input {i} rank {x.rank} exceeds the output rank {out.rank}"
            if out.rank > 4 and x.shape != out.shape and x.count() != 1:
                return f"input {i} shape {x.shape} cannot broadcast to the rank {out.rank} output {out.shape}"
        coeffs = params.attrs_as(EltwiseAttrs).coefficients
        if coeffs is not None and len(coeffs) != len(params.inputs):
            return f"{len(coeffs)} coefficients for {len(params.inputs)} inputs"
        mode = EltwiseMode(params.attrs_as(EltwiseAttrs).mode)
        checked = params.inputs[:1] if mode == EltwiseMode.pow else params.inputs
        for i, x in enumerate(checked):
            if x.dtype != out.dtype:
                return f"input {i} data type {x.dtype.value} differs from the output's {out.dtype.value}"
        return None

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus ``ELTWISE_INPUTS_DECL``, ``INPUTi_BCAST_INDEX(b, f, y, x)`` and
        ``ELTWISE_RESULT(b, f, y, x)``."""
        j = super().jit_constants(params)
        n = len(params.inputs)
        out_rank = params.output.rank
        acc = compute_type(params)
        j.add("ELTWISE_INPUTS_DECL", ", ".join(f"const __global INPUT{i}_TYPE* input{i}" for i in range(n)))
        vals = []
        for i, x in enumerate(params.inputs):
            j.add(f"INPUT{i}_BCAST_INDEX(b, f, y, x)", broadcast_get_index(f"INPUT{i}", x.shape, out_rank))
            vals.append(f"(({acc})INPUT{i}_LOAD(input{i}, INPUT{i}_BCAST_INDEX(b, f, y, x)))")
        mode = EltwiseMode(params.attrs_as(EltwiseAttrs).mode)
        coeffs = params.attrs_as(EltwiseAttrs).coefficients
        if mode == EltwiseMode.sum and coeffs is not None:
            vals = [f"{_float_literal(c)} * {v}" for c, v in zip(coeffs, vals)]
        expr = vals[0]
        for v in vals[1:]:
            expr = cl_eltwise(mode.value, expr, v, integer=acc == "int", paren=True)
        if acc == "float" and params.output.dtype not in (DataType.f32, DataType.f16):
            if mode == EltwiseMode.pow:  # ONNX casts the power to the base's type: truncation
                expr = f"eltwise_pow_to_int({expr})"
            expr = f"CONVERT_TO(OUTPUT_TYPE, {expr})"
        j.add("ELTWISE_RESULT(b, f, y, x)", f"({expr})")
        return j
