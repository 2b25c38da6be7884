"""eltwise_gpu_wg: element-wise ops for GPUs, one work-item per output element in 1-D work-groups of 256."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import EltwiseAttrs, EltwiseMode
from cldnn_py.ops.elementwise import cl_eltwise

from ...common.broadcast import broadcast_get_index
from ...common.eltwise_type import compute_type
from ...common.gpu_workgroup import flat_dispatch, flat_lws
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, KernelBase
from ...params import Params, SupportedKey
from ...selector import register

_TYPES = frozenset({DataType.f32, DataType.i32})


@register
class EltwiseKernelGpuWg(KernelBase):
    """y = in0 ∘ in1 ∘ ... ∘ in(N-1) left to right, for GPUs (the clDNN ``eltwise_simple`` idea of a flat launch).

    Semantics as ``eltwise_ref``: modes sum (optional per-input coefficients), sub, prod, div, max, min, pow,
    prelu; N >= 2 inputs broadcasting by numpy rules to the output; f32 and i32 (all-i32 in int, otherwise float,
    an i32 output saturating); any format, padded or not, through ``INPUTi_BCAST_INDEX`` / ``OUTPUT_GET_INDEX``.
    Fused activations and eltwise operands through FUSED_OPS.

    Dispatch: gws = (count rounded up to lws,), lws = (256,) (clipped to the device's limits); the work-item's
    linear id is the output's logical (b, f, y, x) row-major index, x fastest, so neighbouring work-items touch
    neighbouring addresses of bfyx tensors; a guard drops the tail. No local memory.
    """

    name = "eltwise_gpu_wg"
    primitive = "eltwise"
    tier = "gpu"
    supports_fused_ops = True
    n_data_inputs = None

    def supported_key(self) -> SupportedKey:
        """OpenCL; f32 and i32 inputs and output; any format, padded or not."""
        return SupportedKey(input_dtypes=_TYPES, output_dtypes=_TYPES)

    def validate(self, params: Params) -> str | None:
        """As eltwise_ref: inputs broadcast to the output (rank 5-6: the output's shape or one element), one
        coefficient per input, inputs of the output's data type except pow's exponents."""
        out = params.output
        for i, x in enumerate(params.inputs):
            if x.rank > out.rank:
                return f"input {i} rank {x.rank} exceeds the output rank {out.rank}"
            if out.rank > 4 and x.shape != out.shape and x.count() != 1:
                return f"input {i} shape {x.shape} cannot broadcast to the rank {out.rank} output {out.shape}"
        a = params.attrs_as(EltwiseAttrs)
        if a.coefficients is not None and len(a.coefficients) != len(params.inputs):
            return f"{len(a.coefficients)} coefficients for {len(params.inputs)} inputs"
        mode = EltwiseMode(a.mode)
        checked = params.inputs[:1] if mode == EltwiseMode.pow else params.inputs
        for i, x in enumerate(checked):
            if x.dtype != out.dtype:
                return f"input {i} data type {x.dtype.value} differs from the output's {out.dtype.value}"
        if flat_lws(params.caps) < 32:
            return f"max work-group size {params.caps.max_work_group_size} < 32"
        return None

    def priority(self, params: Params) -> int:
        """FORCE_PRIORITY_3: ahead of eltwise_ref in the gpu tier."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus ``ELTWISE_INPUTS_DECL``, ``INPUTi_BCAST_INDEX(b, f, y, x)``, ``ELTWISE_RESULT`` and
        ``ELTWISE_COUNT`` (the output's element count)."""
        j = super().jit_constants(params)
        n = len(params.inputs)
        out_rank = params.output.rank
        acc = compute_type(params)
        j.add("ELTWISE_INPUTS_DECL", ", ".join(f"const __global INPUT{i}_TYPE* input{i}" for i in range(n)))
        vals = []
        for i, x in enumerate(params.inputs):
            j.add(f"INPUT{i}_BCAST_INDEX(b, f, y, x)", broadcast_get_index(f"INPUT{i}", x.shape, out_rank))
            vals.append(f"(({acc})input{i}[INPUT{i}_BCAST_INDEX(b, f, y, x)])")
        a = params.attrs_as(EltwiseAttrs)
        mode = EltwiseMode(a.mode)
        if mode == EltwiseMode.sum and a.coefficients is not None:
            vals = [f"({c:.9e}f) * {v}" for c, v in zip(a.coefficients, vals)]
        expr = vals[0]
        for v in vals[1:]:
            expr = cl_eltwise(mode.value, expr, v, integer=acc == "int", paren=True)
        if acc == "float" and params.output.dtype != DataType.f32:
            if mode == EltwiseMode.pow:  # ONNX casts the power to the base's type: truncation
                expr = f"eltwise_pow_to_int({expr})"
            expr = f"CONVERT_TO(OUTPUT_TYPE, {expr})"
        j.add("ELTWISE_RESULT(b, f, y, x)", f"({expr})")
        j.add("ELTWISE_COUNT", params.output.count())
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """gws = (output count rounded up to lws,), lws = (256,) within the device's limits."""
        b, f, y, x = params.output.dims4
        return flat_dispatch(b * f * y * x, params.caps)
