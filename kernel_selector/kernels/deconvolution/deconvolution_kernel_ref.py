"""deconvolution_ref: one work-item per output element gathers its input taps; any data format, groups,
dilation, pads, output padding."""

from __future__ import annotations

from cldnn_py.ops import DeconvolutionAttrs

from ...common.fc_plain import float_reason
from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


@register
class DeconvolutionKernelRef(KernelBase):
    """Reference transposed convolution (clDNN ``deconvolution_gpu_ref``), written as a gather so no atomics are
    needed: output (b, o, oy, ox) sums x[b, c, iy, ix]·W[c, o mod OC/groups, ky, kx] over the group's input
    channels c and the taps with iy·stride_y + ky·dilation_y = oy + pad_y (iy in [0, H), the division exact), and
    the same along x; then adds bias[o].

    Inputs: INPUT0 data (N, C, H, W) in any format; INPUT1 weights (C, OC/groups, KH, KW), plain bfyx/oiyx;
    INPUT2 bias (OC,) when present. Output (N, OC, OH, OW) in any format. Each tensor f32 or f16 (half storage,
    float accumulation), in any mix. Cost: N·OC·OH·OW work-items, each
    visiting C/groups·KH·KW taps of which about 1/(stride_y·stride_x) contribute.
    """

    name = "deconvolution_ref"
    primitive = "deconvolution"

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16 data in and out, any format."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """Weights must be plain (oiyx/bfyx) and unpadded; the input 4-D; weights and bias f32 or f16."""
        w = params.inputs[1]
        if w.format.value not in ("bfyx", "oiyx") or not w.padding.is_zero:
            return f"weights format {w.format.value} (padded={not w.padding.is_zero}) is not plain"
        if params.inputs[0].rank != 4 or w.rank != 4:
            return f"input rank {params.inputs[0].rank} / weights rank {w.rank} are not 4"
        return float_reason(params.inputs[1:3])

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus stride, dilation, begin pads, groups, filter sizes and ``BIAS_INDEX(m)`` (the m-th
        logical element of a bias of any shape)."""
        j = super().jit_constants(params)
        a = params.attrs_as(DeconvolutionAttrs)
        icg = params.inputs[0].shape[1] // a.groups
        _, ocg, kh, kw = params.inputs[1].shape
        j.update({"STRIDE_Y": a.stride[0], "STRIDE_X": a.stride[1],
                  "DILATION_Y": a.dilation[0], "DILATION_X": a.dilation[1],
                  "PAD_Y": a.pad[0], "PAD_X": a.pad[1],
                  "FILTER_IFM_PER_GROUP": icg, "FILTER_OFM_PER_GROUP": ocg,
                  "FILTER_SIZE_Y": kh, "FILTER_SIZE_X": kw, "BIAS_TERM": int(len(params.inputs) > 2)})
        if len(params.inputs) > 2:  # logical flat index m -> (b, f, y, x) of the bias tensor, whatever its shape
            j.add("BIAS_INDEX(m)", "INPUT2_GET_INDEX((m) / (INPUT2_FEATURE_NUM * INPUT2_SIZE_Y * INPUT2_SIZE_X), "
                  "(m) / (INPUT2_SIZE_Y * INPUT2_SIZE_X) % INPUT2_FEATURE_NUM, "
                  "(m) / INPUT2_SIZE_X % INPUT2_SIZE_Y, (m) % INPUT2_SIZE_X)")
        return j
