"""eltwise_ref: N inputs (N >= 2) folded left to right with numpy broadcasting; one work-item per output element."""

from __future__ import annotations

from cldnn_py.primitives.eltwise import EltwiseMode

from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import Params
from ...selector import register

_INFIX = {EltwiseMode.sum: "+", EltwiseMode.sub: "-", EltwiseMode.prod: "*", EltwiseMode.div: "/"}
_FUNC = {EltwiseMode.max: "fmax", EltwiseMode.min: "fmin"}


def broadcast_get_index(name: str, shape: tuple[int, ...], out_rank: int) -> str:
    """``NAME_GET_INDEX(...)`` of the element of a tensor of logical ``shape`` that numpy broadcasting maps to the
    output element (b, f, y, x) of an output of rank ``out_rank``.

    The trailing dimensions are aligned: input dimension j pairs with output dimension j + out_rank - len(shape)
    (output dimensions are b, f, y, x in that order, the unused ones 0); a dimension of size 1 reads index 0.
    The result uses the names ``b``, ``f``, ``y``, ``x``. Raises ValueError when ``shape`` has more dimensions
    than the output or the output has more than 4 (rank 5-6 tensors fold dimensions into x and cannot broadcast
    per dimension).
    """
    off = out_rank - len(shape)
    if off < 0 or out_rank > 4:
        raise ValueError(f"{name}: cannot broadcast shape {shape} to an output of rank {out_rank}")
    coords = ["0"] * 4
    for j, size in enumerate(shape):
        if size > 1:
            coords[j] = f"({'bfyx'[j + off]})"
    return f"{name}_GET_INDEX({', '.join(coords)})"


def _float_literal(c: float) -> str:
    """OpenCL float literal with 9 significant digits and an exponent (``2.0`` -> ``2.000000000e+00f``)."""
    return f"({c:.9e}f)"


@register
class EltwiseKernelRef(KernelBase):
    """Reference eltwise (clDNN ``eltwise_ref``): y = in0 ∘ in1 ∘ ... ∘ in(N-1), left to right.

    Modes: ``sum`` (with optional per-input coefficients: y = Σ c_i·in_i), ``sub``, ``prod``, ``div``, ``max``,
    ``min``. Inputs may have different logical shapes and ranks as long as they broadcast by numpy rules to the
    output shape (trailing dimensions aligned, size-1 dimensions broadcast); each input and the output may be in any
    format, padded or not. Since N varies, the jit generates the parameter list (``ELTWISE_INPUTS_DECL``), one
    ``INPUTi_BCAST_INDEX(b, f, y, x)`` per input and the whole folded expression (``ELTWISE_RESULT``).
    """

    name = "eltwise_ref"
    primitive = "eltwise"
    n_data_inputs = None

    def validate(self, params: Params) -> str | None:
        """Output rank <= 4, every input broadcast to the output's rank; coefficients, when given, one per input."""
        out_rank = params.output.rank
        if out_rank > 4:
            return f"output rank {out_rank} > 4"
        for i, x in enumerate(params.inputs):
            if x.rank > out_rank:
                return f"input {i} rank {x.rank} exceeds the output rank {out_rank}"
        coeffs = params.attrs.get("coefficients")
        if coeffs is not None and len(coeffs) != len(params.inputs):
            return f"{len(coeffs)} coefficients for {len(params.inputs)} inputs"
        return None

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus ``ELTWISE_INPUTS_DECL``, ``INPUTi_BCAST_INDEX(b, f, y, x)`` and
        ``ELTWISE_RESULT(b, f, y, x)``."""
        j = super().jit_constants(params)
        n = len(params.inputs)
        out_rank = params.output.rank
        j.add("ELTWISE_INPUTS_DECL", ", ".join(f"const __global INPUT{i}_TYPE* input{i}" for i in range(n)))
        vals = []
        for i, x in enumerate(params.inputs):
            j.add(f"INPUT{i}_BCAST_INDEX(b, f, y, x)", broadcast_get_index(f"INPUT{i}", x.shape, out_rank))
            vals.append(f"((float)input{i}[INPUT{i}_BCAST_INDEX(b, f, y, x)])")
        mode = EltwiseMode(params.attrs["mode"])
        coeffs = params.attrs.get("coefficients")
        if mode == EltwiseMode.sum and coeffs is not None:
            vals = [f"{_float_literal(c)} * {v}" for c, v in zip(coeffs, vals)]
        expr = vals[0]
        for v in vals[1:]:
            expr = f"{_FUNC[mode]}({expr}, {v})" if mode in _FUNC else f"({expr} {_INFIX[mode]} {v})"
        j.add("ELTWISE_RESULT(b, f, y, x)", f"({expr})")
        return j
