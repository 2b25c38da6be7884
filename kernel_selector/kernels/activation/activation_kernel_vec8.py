"""activation_vec8: an activation on f32 or f16 (storage) data with float8 accesses, run by eltwise_vec8's template
as a one-input eltwise whose first fused op is the activation itself."""

from __future__ import annotations

import dataclasses

from cldnn_py.ops import ActivationAttrs, EltwiseAttrs, FusedActivationAttrs

from ...jitter import JitConstants
from ...kernel_base import KernelData, load_template
from ...params import FusedOp, Params
from ...selector import register
from ..eltwise.eltwise_kernel_vec8 import EltwiseKernelVec8


def as_eltwise(params: Params) -> Params:
    """The activation's Params as a one-input eltwise sum whose fused ops start with the activation (Params already
    in that form are returned as they are: eltwise_vec8's methods call each other)."""
    if params.kind == "eltwise":
        return params
    a = params.attrs_as(ActivationAttrs)
    own = FusedOp("activation", FusedActivationAttrs(a.func.value, a.a, a.b))
    return dataclasses.replace(params, kind="eltwise", attrs=EltwiseAttrs(), fused_ops=[own, *params.fused_ops])


@register
class ActivationKernelVec8(EltwiseKernelVec8):
    """y = f(x) (then the fused ops) for f32 or f16 (storage) data in eltwise_vec8's two layouts: flat (one
    unpadded layout without block tails, any format: 16 float8 per work-item) or b_fs_yx_fsv16 (padding along
    y/x/batch: 16 channels x 4 pixels per work-item). f in FUSED_OPS8's float8 form (call-free where the activation
    table has one, the scalar formula lane by lane otherwise). Serves the activations that cannot fuse into a
    producer: after a concatenation, a deconvolution, a network input, or on a tensor read twice. activation_ref
    computes one element per work-item through GET_INDEX."""

    name = "activation_vec8"
    primitive = "activation"

    def validate(self, params: Params) -> str | None:
        """eltwise_vec8's checks on the one-input form (the activation among the fused ops)."""
        return super().validate(as_eltwise(params))

    def priority(self, params: Params) -> int:
        """eltwise_vec8's (ahead of the reference)."""
        return super().priority(as_eltwise(params))

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """eltwise_vec8's dispatch."""
        return super().dispatch(as_eltwise(params))

    def kernel_data(self, params: Params) -> KernelData:
        """eltwise_vec8's kernel for the one-input form; the template is eltwise_vec8's."""
        return super().kernel_data(as_eltwise(params))

    def make_source(self, jit: JitConstants, template: str | None = None) -> tuple[str, str]:
        """eltwise_vec8's template."""
        return super().make_source(jit, load_template("eltwise_vec8"))
