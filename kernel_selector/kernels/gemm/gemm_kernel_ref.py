"""gemm_ref: batched matrix product (numpy matmul semantics, transposes, alpha/beta, broadcast C), one work-item
per output element, any data format, ranks 1-6."""

from __future__ import annotations

from cldnn_py.ops import GemmAttrs, gemm_shapes
from cldnn_py.ops.elementwise import float_literal

from ...common.gemm_index import gemm_index_jit, prod
from ...common.nd_index import nd_check, nd_jit
from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


@register
class GemmKernelRef(KernelBase):
    """Reference gemm (clDNN ``gemm_ref``): y[.., m, n] = alpha · Σ_k op(A)[.., m, k] · op(B)[.., k, n]
    + beta · C[broadcast].

    Inputs: INPUT0 A, INPUT1 B, INPUT2 C (optional); each of rank 1-6 in any format up to rank 4 (plain unpadded
    bfyx for rank 5-6), read through its ``IDX6`` macro with the batch coordinates broadcast (numpy ``matmul``
    rules, see :func:`cldnn_py.primitives.gemm.gemm_shapes`). gws = (N, M, batch); each work-item accumulates its
    K products in float with two partial sums (even and odd k). Each operand and the output f32 or f16 (half
    storage through the LOAD / STORE macros).
    """

    name = "gemm_ref"
    primitive = "gemm"
    n_data_inputs = None

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16 operands and output (each its own), any format, padding allowed."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """Two or three inputs, ranks <= 6 (5-6 plain bfyx), inner dimensions that match."""
        if len(params.inputs) not in (2, 3):
            return f"expected 2 or 3 inputs, got {len(params.inputs)}"
        bad = nd_check(params.inputs, params.output)
        if bad:
            return bad
        try:
            gemm_shapes(params.inputs[0].shape, params.inputs[1].shape, bool(params.attrs_as(GemmAttrs).transpose_a),
                        bool(params.attrs_as(GemmAttrs).transpose_b))
        except ValueError as e:
            return str(e)
        return None

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, their IDX6 macros, the gemm index macros, ALPHA, BETA and HAS_C."""
        j = super().jit_constants(params)
        for i, x in enumerate(params.inputs):
            j.update(nd_jit(f"INPUT{i}", x))
        j.update(nd_jit("OUTPUT", params.output))
        j.update(gemm_index_jit(params))
        a = params.attrs_as(GemmAttrs)
        j.update({"ALPHA": float_literal(a.alpha), "BETA": float_literal(a.beta),
                  "HAS_C": len(params.inputs) > 2})
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """gws = (N, M, batch)."""
        batch, m, _, n, _ = gemm_shapes(params.inputs[0].shape, params.inputs[1].shape,
                                        params.attrs_as(GemmAttrs).transpose_a, params.attrs_as(GemmAttrs).transpose_b)
        return (n, m, prod(batch)), None
