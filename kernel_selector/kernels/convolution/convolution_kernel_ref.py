"""convolution_ref: one work-item per output element; any data format, oiyx weights, groups, dilation."""

from __future__ import annotations

from cldnn_py.ops import ConvolutionAttrs

from ...common.fc_plain import float_reason
from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


@register
class ConvolutionKernelRef(KernelBase):
    """Reference direct convolution (clDNN ``convolution_gpu_ref``).

    Inputs: INPUT0 data (N, C, H, W) in any format, INPUT1 weights (OC, C/groups, KH, KW) bfyx/oiyx, INPUT2 bias
    (OC,) when present. Each tensor f32 or f16 (half storage, float accumulation), in any mix. Cost: OC·OH·OW·N
    work-items each doing C/groups·KH·KW multiply-adds (2–6 GFLOP/s on PoCL).
    """

    name = "convolution_ref"
    primitive = "convolution"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16 data in and out, any format."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """Weights must be plain (oiyx/bfyx) and unpadded; weights and bias f32 or f16."""
        w = params.inputs[1]
        if w.format.value not in ("bfyx", "oiyx") or not w.padding.is_zero:
            return f"weights format {w.format.value} (padded={not w.padding.is_zero}) is not plain oiyx"
        return float_reason(params.inputs[1:3])

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus stride, dilation, begin pads, groups and filter sizes."""
        j = super().jit_constants(params)
        a = params.attrs_as(ConvolutionAttrs)
        oc, icg, kh, kw = params.inputs[1].shape
        j.update({"STRIDE_Y": a.stride[0], "STRIDE_X": a.stride[1],
                  "DILATION_Y": a.dilation[0], "DILATION_X": a.dilation[1],
                  "PAD_Y": a.pad[0], "PAD_X": a.pad[1], "GROUPS": a.groups,
                  "FILTER_IFM_NUM": icg, "FILTER_OFM_PER_GROUP": oc // a.groups,
                  "FILTER_SIZE_Y": kh, "FILTER_SIZE_X": kw, "BIAS_TERM": int(len(params.inputs) > 2)})
        return j
