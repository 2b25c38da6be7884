"""pooling_ref: one work-item per output element; max / average / average_no_padding, any data format."""

from __future__ import annotations

from cldnn_py.ops import PoolingAttrs, PoolingMode

from ...common.pooling import POOL_MODE_CODE, pooling_window
from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


@register
class PoolingKernelRef(KernelBase):
    """Reference 2-D pooling (clDNN ``pooling_gpu_ref``): y[b,f,oy,ox] over the window
    [oy·stride − pad, oy·stride − pad + kernel) × (same for x).

    With ``dilation`` d the window holds the taps o·stride − pad + t·d, t in [0, kernel) (d = 1: the dense window).

    Input (N, C, H, W) and output (N, C, OH, OW) in any format, padded or not. Modes:

    - ``max``: maximum of the valid input elements of the window (pad positions never win);
    - ``average``: sum of the valid elements divided by the number of taps inside the padded extent
      [−pad, size + pad_end), i.e. ONNX ``count_include_pad=1`` / PyTorch: the extra tail that ceil mode adds past
      ``pad_end`` is not counted;
    - ``average_no_padding``: sum divided by the number of valid taps.

    The output size (ceil mode included) comes from the primitive's ``calc_output_layout``; every window then holds
    at least one valid element because pads are smaller than the kernel.
    """

    name = "pooling_ref"
    primitive = "pooling"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """OpenCL; f32 or f16 (storage, float arithmetic) in and out; any format, padding allowed."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """Input must be 4-D (N, C, H, W)."""
        if params.inputs[0].rank != 4:
            return f"input rank {params.inputs[0].rank} is not 4"
        return None

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus window sizes, strides, dilations, begin/end pads and ``POOL_MODE`` (0 max, 1 average,
        2 average_no_padding)."""
        j = super().jit_constants(params)
        k, s, pb, pe = pooling_window(params)
        a = params.attrs_as(PoolingAttrs)
        d = (1, 1) if a.global_pooling else a.dilation
        mode = PoolingMode(a.mode)
        j.update({"POOL_SIZE_Y": k[0], "POOL_SIZE_X": k[1], "STRIDE_Y": s[0], "STRIDE_X": s[1],
                  "DILATION_Y": d[0], "DILATION_X": d[1],
                  "PAD_Y": pb[0], "PAD_X": pb[1], "PAD_END_Y": pe[0], "PAD_END_X": pe[1],
                  "POOL_MODE": POOL_MODE_CODE[mode]})
        return j
