"""dynamic_quant_params_cpu_flat: DynamicQuantizeLinear's parameters on the CPU engine, numpy's min and max over
the raw buffer (no numba specialization, no gather)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...common.cpu_launch import viewer
from ...cpu_kernel_base import CPU, CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_3
from ...params import FLOATS, Params, SupportedKey
from ...selector import register
from .dynamic_quant_params_kernel_cpu_ref import quant_params


@register
class DynamicQuantParamsKernelCpuFlat(CpuKernelBase):
    """(s, z, −z, 255 − z) of an input whose buffer holds exactly its elements (unpadded, no block tail, any
    format: a min and a max do not see the order): ``np.min`` / ``np.max`` of the flat view, then
    :func:`quant_params`. The reference (``dynamic_quant_params_cpu_ref``) gathered the logical array first, which
    made a dynamically quantized SqueezeNet 1.7× slower than the node-by-node Reduces. Measured on it and on
    MobileNetV3-style and ResNet-50 (dynamic), same process."""

    name = "dynamic_quant_params_cpu_flat"
    primitive = "dynamic_quant_params"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU, f32 / f16 input, f32 output, any format, no padding."""
        return SupportedKey(engines=CPU, input_dtypes=FLOATS, padded_inputs=False, padded_output=False)

    def validate(self, params: Params) -> str | None:
        """The buffer holds exactly the elements; no fused ops."""
        x = params.inputs[0]
        if x.buffer_size != x.count():
            return f"{x}: its buffer holds more than its elements (a block tail)"
        return "fused ops are not supported" if params.fused_ops else None

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output)."""
        x, out = params.inputs[0], params.output
        count = x.count()
        src, dst = viewer(x), viewer(out)

        def fn(*bufs: Any) -> None:
            v = src(bufs[0])[:count]
            dst(bufs[-1])[:4] = quant_params(v.min(), v.max())

        return fn
