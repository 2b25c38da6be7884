"""mvn_rows: mean-variance normalization over contiguous rows (the trailing axes of unpadded bfyx), float8 chunks.

``mvn_ref`` gives each work-item a group too, but visits it through the N-D index macros one float at a time. A
transformer's LayerNorm is a row of a few hundred floats per token; here the row is contiguous and loaded 8 floats at
a time, with gamma / beta read the same way; one work-item per row, work-groups of one (the CPU tier's form, as
``softmax_rows``).
"""

from __future__ import annotations

from cldnn_py.layout import DataType, Format
from cldnn_py.ops import MVNAttrs
from cldnn_py.ops.elementwise import float_literal

from ...common.mvn_rows import operand_modes, row_length, rows_reason
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, KernelBase
from ...params import Params, SupportedKey
from ...selector import register


@register
class MVNKernelRows(KernelBase):
    """MVN (``mvn_ref``'s semantics: mean and biased variance over the normalized axes in two passes,
    y = (x − mean) · 1 / sqrt(var + epsilon) · scale + bias; ONNX LayerNormalization, and InstanceNormalization on
    bfyx) when the normalized axes are the trailing axes of an unpadded bfyx f32 tensor of rank 1-6, so each group
    is a contiguous row of MV_LEN floats. Scale and bias (f32 bfyx) are either one value per row element (gamma and
    beta over the normalized axes) or one value per row (:mod:`..common.mvn_rows`). Output: the normalized tensor,
    unpadded bfyx f32 of the input's shape (the mean / inv_std_dev results run ``mvn_ref``). gws = (rows,),
    lws = (1,) (cl_kernels/mvn_rows.cl)."""

    name = "mvn_rows"
    primitive = "mvn"
    tier = "cpu"  # work-groups of one work-item
    n_data_inputs = None

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32, bfyx, no padding."""
        f32, bfyx = frozenset({DataType.f32}), frozenset({Format.bfyx})
        return SupportedKey(input_dtypes=f32, output_dtypes=f32, input_formats=bfyx, output_formats=bfyx,
                            padded_inputs=False, padded_output=False)

    def validate(self, params: Params) -> str | None:
        """Trailing normalized axes, the normalized result, scale / bias per element or per row."""
        return rows_reason(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, MV_LEN, EPSILON, NORMALIZE_VARIANCE, SCALE_MODE / SCALE_MOD, BIAS_MODE / BIAS_MOD."""
        j = super().jit_constants(params)
        a = params.attrs_as(MVNAttrs)
        (sm, smod), (bm, bmod) = [m or (0, 1) for m in operand_modes(params)]
        return j.update({"MV_LEN": row_length(params), "EPSILON": float_literal(a.epsilon),
                         "NORMALIZE_VARIANCE": int(bool(a.normalize_variance)), "SCALE_MODE": sm, "SCALE_MOD": smod,
                         "BIAS_MODE": bm, "BIAS_MOD": bmod})

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """gws = (rows,), lws = (1,)."""
        return (params.inputs[0].count() // row_length(params),), (1,)
