"""dynamic_quant_params: DynamicQuantizeLinear's uint8 scale and zero point of a whole tensor in one kernel."""

from __future__ import annotations

from cldnn_py.layout import DataType, Format

from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


@register
class DynamicQuantParamsKernel(KernelBase):
    """(s, z, −z, 255 − z) of a whole tensor (primitive ``dynamic_quant_params``, ONNX DynamicQuantizeLinear's
    arithmetic): one work-item (gws = lws = (1,)) takes the min and max, then the scalar arithmetic, in place of the
    ~12 one-element kernels of the node-by-node import (two Reduces, min/max with 0, the range, the division by
    255, the zero point's division, round and clamp, its uint8 and float casts, −z, 255 − z: measured on a
    dynamically quantized MobileNetV3 on PoCL, 924 kernels of which ~640 were these, each ~40 µs of the device's
    hand-over time).

    INPUT0 f32 or f16 storage, rank 1-6, any format and padding: read as float8 when the buffer holds exactly the
    elements (DQP_FLAT), b_fs_yx_fsv16 with a channel tail skipping the padding lanes (DQP_FSV16_TAIL), otherwise
    element by element through GET_INDEX (rank ≤ 4). OUTPUT (4,) f32. A single work-item: shaped for CPU devices;
    on a GPU it is correct and slow on large tensors (a work-group reduction would be the GPU form)."""

    name = "dynamic_quant_params"
    primitive = "dynamic_quant_params"

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 / f16 input, f32 output, any format, padding allowed."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=frozenset({DataType.f32}))

    def validate(self, params: Params) -> str | None:
        """Rank ≤ 4 unless the buffer is flat."""
        x = params.inputs[0]
        if x.rank > 4 and not _flat(params):
            return f"a rank-{x.rank} input must be unpadded without block tails, got {x}"
        return None

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus DQP_FLAT / DQP_COUNT, or DQP_FSV16_TAIL / DQP_SLICES / DQP_PIXELS."""
        j = super().jit_constants(params)
        x = params.inputs[0]
        if _flat(params):
            return j.update({"DQP_FLAT": 1, "DQP_COUNT": x.count()})
        b, f, y, xx = x.dims4
        if x.format == Format.b_fs_yx_fsv16 and x.padding.is_zero:
            return j.update({"DQP_FSV16_TAIL": f % 16, "DQP_SLICES": -(-f // 16), "DQP_PIXELS": y * xx})
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """One work-item."""
        return (1,), (1,)


def _flat(params: Params) -> bool:
    x = params.inputs[0]
    return x.padding.is_zero and x.buffer_size == x.count()
