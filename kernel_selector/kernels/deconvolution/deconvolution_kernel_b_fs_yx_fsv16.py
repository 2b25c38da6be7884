"""deconvolution_b_fs_yx_fsv16: transposed convolution (UNet/DBNet upsampling heads, FCN decoders) on blocked f32 or
f16 data for CPU OpenCL devices: 16 output channels x a few same-phase pixels per work-item."""

from __future__ import annotations

from cldnn_py.layout import Format
from cldnn_py.ops import DeconvolutionAttrs

from ...common.fsv16_store import fsv16_store_jit, plain_store_jit
from ...common.inline_half import inline_half_jit
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register

BLOCK = 8
"""Output pixels of one x phase per work-item."""


def phase_width(out_x: int, stride: int) -> int:
    """Output pixels of the widest x phase: ceil(OX / stride)."""
    return -(-out_x // stride)


@register
class DeconvolutionKernelBFsYxFsv16(KernelBase):
    """Transposed convolution, groups 1, as a gather split by output phase (the sub-pixel view of a strided
    deconvolution, Shi et al. 2016): output (b, o, oy, ox) = Σ_c Σ_taps x[b, c, iy, ix]·W[c, o, ky, kx] + bias[o]
    with iy·stride_y + ky·dilation_y = oy + pad_y (likewise x), exact division.

    INPUT0 (N, C, H, W) b_fs_yx_fsv16 (y/x/batch padding allowed, none along features); INPUT1 weights
    (C, OC, KH, KW) plain unpadded; INPUT2 bias (OC,) plain unpadded. OUTPUT (N, OC, OH, OW) b_fs_yx_fsv16, or
    bfyx (OUTPUT_PLAIN: only the real channels are written, for a head of a few channels where fsv16 would write 16
    lanes per pixel). Each tensor f32 or f16 (half storage, float arithmetic), in any mix. One work-item: 16 output
    channels x P = 8 output pixels of one row that share an x phase (so the same taps apply and the input column
    steps by one); per input channel and tap it gathers the 16 weights once into two float8.
    gws (stride_x·ceil(ceil(OW / stride_x) / P), OH, ceil(OC / 16)·N), lws (1, 1, 1). No fused ops
    (deconvolution_ref takes none either). DBNet-style head at 320x320 on PoCL: the two ConvTranspose 2x2/2 layers
    took 4.1 ms in deconvolution_ref.
    """

    name = "deconvolution_b_fs_yx_fsv16"
    primitive = "deconvolution"
    tier = "cpu"  # work-groups of one work-item: shaped for CPU devices
    writes_padded_blocks = True  # out = output + OUTPUT_OFFSET + b, slice, y, x pitches

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16, data b_fs_yx_fsv16 in, b_fs_yx_fsv16 or (a narrow head: OUTPUT_PLAIN) bfyx out
        (weights plain: validate)."""
        fsv16 = frozenset({Format.b_fs_yx_fsv16})
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS,
                            input_formats=fsv16, output_formats=fsv16 | {Format.bfyx})

    def validate(self, params: Params) -> str | None:
        """Groups 1, rank 4, no input feature padding, plain unpadded f32 or f16 weights and bias."""
        a = params.attrs_as(DeconvolutionAttrs)
        x, w, out = params.inputs[0], params.inputs[1], params.output
        if a.groups != 1:
            return f"groups={a.groups}: groups 1 only"
        if x.rank != 4 or w.rank != 4:
            return f"input rank {x.rank} / weights rank {w.rank} are not 4"
        if x.padding.lower[1] or x.padding.upper[1]:
            return "input padded along features"
        for name, t in zip(("weights", "bias"), params.inputs[1:3]):
            if t.format.value not in ("bfyx", "oiyx") or not t.padding.is_zero or t.dtype not in FLOATS:
                return f"{name} must be plain unpadded f32 or f16, got {t.dtype.value} {t.format.value}"
        if len(params.inputs) > 2 and params.inputs[2].count() != out.shape[1]:
            return f"bias holds {params.inputs[2].count()} values for {out.shape[1]} channels"
        return None

    def priority(self, params: Params) -> int:
        """Ahead of deconvolution_ref whenever it validates."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, stride, dilation, begin pads, filter size, BIAS_TERM, DC_BLOCK, OUTPUT_PLAIN, the call-free
        half loads (:func:`inline_half_jit`) and the pixel stores DC_STORE_PIXEL / DC_PLAIN_PIXEL."""
        j = super().jit_constants(params).update(inline_half_jit({f"INPUT{i}": x for i, x in enumerate(params.inputs)}))
        j.update(fsv16_store_jit("DC_STORE_PIXEL", params.output.dtype))
        j.update(plain_store_jit("DC_PLAIN_PIXEL", params.output.dtype))
        a = params.attrs_as(DeconvolutionAttrs)
        _, _, kh, kw = params.inputs[1].shape
        return j.update({"STRIDE_Y": a.stride[0], "STRIDE_X": a.stride[1], "DILATION_Y": a.dilation[0],
                         "DILATION_X": a.dilation[1], "PAD_Y": a.pad[0], "PAD_X": a.pad[1],
                         "FILTER_SIZE_Y": kh, "FILTER_SIZE_X": kw, "BIAS_TERM": int(len(params.inputs) > 2),
                         "DC_BLOCK": BLOCK, "OUTPUT_PLAIN": int(params.output.format == Format.bfyx)})

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(stride_x·ceil(ceil(OW / stride_x) / P), OH, ceil(OC / 16)·N), (1, 1, 1)."""
        b, f, y, x = params.output.dims4
        sx = params.attrs_as(DeconvolutionAttrs).stride[1]
        return (sx * -(-phase_width(x, sx) // BLOCK), y, -(-f // 16) * b), (1, 1, 1)
