"""activation_gpu_wg: activation for GPUs, one work-item per element in 1-D work-groups of 256."""

from __future__ import annotations

from cldnn_py.ops import ActivationAttrs
from cldnn_py.ops.elementwise import ACTIVATIONS

from ...common.gpu_workgroup import flat_dispatch, flat_lws
from ...jitter import JitConstants, activation_jit
from ...kernel_base import FORCE_PRIORITY_3, KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


@register
class ActivationKernelGpuWg(KernelBase):
    """y[b,f,y,x] = ACTIVATION(x[b,f,y,x]) for GPUs (as ``activation_ref``; a flat launch like clDNN's
    ``activation_opt``, without its vector loads).

    Input and output f32 or f16 (storage) of any shape and format, padded or not (INPUT0_GET_INDEX /
    OUTPUT_GET_INDEX). Dispatch: gws = (count rounded up to lws,), lws = (256,) within the device's limits; the
    linear id is the logical (b, f, y, x) index with x fastest (coalesced on bfyx); a guard drops the tail. No local
    memory.
    """

    name = "activation_gpu_wg"
    primitive = "activation"
    supports_fused_ops = True  # FUSED_OPS after the activation: a chain of activations is one kernel
    tier = "gpu"

    def supported_key(self) -> SupportedKey:
        """OpenCL; f32 or f16 (storage, float arithmetic) in and out; any format, padding allowed."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """A known function; work-groups of at least 32."""
        func = params.attrs_as(ActivationAttrs).func.value
        if func not in ACTIVATIONS:
            return f"unknown activation function {func}"
        if flat_lws(params.caps) < 32:
            return f"max work-group size {params.caps.max_work_group_size} < 32"
        return None

    def priority(self, params: Params) -> int:
        """FORCE_PRIORITY_3: ahead of activation_ref in the gpu tier."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus ``ACTIVATION(x)`` and ``ACT_COUNT``."""
        j = super().jit_constants(params)
        a = params.attrs_as(ActivationAttrs)
        j.update(activation_jit("ACTIVATION", a.func.value, a.a, a.b))
        b, f, y, x = params.output.dims4
        j.add("ACT_COUNT", b * f * y * x)
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """gws = (count rounded up to lws,), lws = (256,) within the device's limits."""
        b, f, y, x = params.output.dims4
        return flat_dispatch(b * f * y * x, params.caps)
