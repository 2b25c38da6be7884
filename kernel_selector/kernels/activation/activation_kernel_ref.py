"""activation_ref: one work-item per output element, any format (reads/writes through GET_INDEX)."""

from __future__ import annotations

from cldnn_py.ops import ActivationAttrs
from cldnn_py.ops.elementwise import ACTIVATIONS

from ...jitter import JitConstants, activation_jit
from ...kernel_base import KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


@register
class ActivationKernelRef(KernelBase):
    """Reference activation (clDNN ``activation_ref``): y[b,f,y,x] = ACTIVATION(x[b,f,y,x])."""

    name = "activation_ref"
    primitive = "activation"
    supports_fused_ops = True  # FUSED_OPS after the activation: a chain of activations is one kernel

    def supported_key(self) -> SupportedKey:
        """f32 or f16 (storage) in and out; any format."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """Any shape; the function must be known."""
        func = params.attrs_as(ActivationAttrs).func.value
        return None if func in ACTIVATIONS else f"unknown activation function {func}"

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus ``ACTIVATION(x)``."""
        j = super().jit_constants(params)
        return j.update(activation_jit("ACTIVATION", params.attrs_as(ActivationAttrs).func.value,
                                       params.attrs_as(ActivationAttrs).a, params.attrs_as(ActivationAttrs).b))
