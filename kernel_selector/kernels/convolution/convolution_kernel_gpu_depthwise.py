"""convolution_gpu_depthwise: depthwise convolution for GPUs (groups == C == OC), bfyx data, oiyx weights.

The portable depthwise recipe (MNN's DepthwiseConvBufExecution, TFLite GPU's depthwise conv; DESIGN.md §5b): a
depthwise layer does KH*KW multiply-adds per output with no reuse across channels, so it is bound by memory, not
by arithmetic, and local memory does not pay. One work-item computes XB consecutive output pixels of one row and
one channel, its KH x KW weights held in registers; a 2-D work-group spans x and y of one channel so neighbouring
work-items read neighbouring input addresses.
"""

from __future__ import annotations

from cldnn_py.layout import Format
from cldnn_py.ops import ConvolutionAttrs

from ...common.fc_plain import float_reason
from ...jitter import JitConstants, fused_ops_jit
from ...kernel_base import FORCE_PRIORITY_3, Arg, ClKernelData, KernelBase, KernelData
from ...params import FLOATS, Params, SupportedKey
from ...selector import register

PLAIN = frozenset({Format.bfyx})
LWS = ((8, 8), (16, 8), (32, 4), (16, 16))
X_BLOCKS = (1, 2, 4)
MAX_TAPS = 64  # KH * KW weights kept in registers (up to 8x8)


@register
class ConvolutionKernelGpuDepthwise(KernelBase):
    """Depthwise direct convolution, weights in registers, no local memory.

    Inputs: INPUT0 data (N, C, H, W) ``bfyx`` (padding allowed, read through INPUT0_GET_INDEX with bounds
    checks), INPUT1 weights (C, 1, KH, KW) plain oiyx/bfyx unpadded with KH*KW <= 64, INPUT2 bias (C,) plain
    unpadded when present. Output (N, C, OH, OW) ``bfyx``, padding allowed. Each tensor f32 or f16 (half storage,
    float arithmetic), in any mix. Stride, dilation, asymmetric pads; bias and fused ops (FUSED_OPS) in the
    epilogue.

    Variant ``{"lx", "ly", "xb"}``: gws (ceil(ceil(OW/XB)/LX)*LX, ceil(OH/LY)*LY, N*C), lws (LX, LY, 1); local
    memory 0 bytes. Work-items past the output edge return at once (the kernel has no barrier).
    """

    name = "convolution_gpu_depthwise"
    primitive = "convolution"
    tier = "gpu"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16, bfyx in and out, padding allowed."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS, input_formats=PLAIN, output_formats=PLAIN)

    def validate(self, params: Params) -> str | None:
        """Rank 4, depthwise with multiplier 1, plain unpadded f32 or f16 weights and bias, at most 64 taps, a fitting
        lws."""
        x, w = params.inputs[0], params.inputs[1]
        if x.rank != 4:
            return f"input rank {x.rank} is not 4"
        g = params.attrs_as(ConvolutionAttrs).groups
        if not (g > 1 and g == x.dims4[1] == w.shape[0]):
            return f"not depthwise: groups={g}, C={x.dims4[1]}, OC={w.shape[0]} (needs groups == C == OC)"
        if w.format not in (Format.bfyx, Format.oiyx) or not w.padding.is_zero:
            return f"weights format {w.format.value} (padded={not w.padding.is_zero}) is not plain oiyx"
        if w.shape[2] * w.shape[3] > MAX_TAPS:
            return f"filter {w.shape[2]}x{w.shape[3]} has more than {MAX_TAPS} taps to keep in registers"
        if len(params.inputs) > 2:
            bias = params.inputs[2]
            if bias.format.is_blocked or not bias.padding.is_zero or bias.count() != w.shape[0]:
                return f"bias must be {w.shape[0]} plain unpadded values, got {bias}"
        reason = float_reason(params.inputs[1:3])
        if reason is not None:
            return reason
        if self.default_variant(params) is None:
            return (f"no work-group fits: max {params.caps.max_work_group_size}, work-item sizes "
                    f"{params.caps.max_work_item_sizes}")
        return None

    def priority(self, params: Params) -> int:
        """Well below the reference."""
        return FORCE_PRIORITY_3

    def _fits(self, params: Params, v: dict[str, int]) -> bool:
        caps = params.caps
        mx = caps.max_work_item_sizes
        return v["lx"] * v["ly"] <= caps.max_work_group_size and v["lx"] <= mx[0] and v["ly"] <= mx[1]

    def default_variant(self, params: Params) -> dict[str, int] | None:
        """One pixel per work-item (XB 1: consecutive work-items read consecutive addresses at stride 1); lws 16x8
        for rows of 16 or more, else 8x8, else the largest of 8x4 / 4x4 / 1x1 the device allows."""
        ow = params.output.dims4[3]
        for lx, ly in (((16, 8),) if ow >= 16 else ()) + ((8, 8), (8, 4), (4, 4), (1, 1)):
            v = {"lx": lx, "ly": ly, "xb": 1}
            if self._fits(params, v):
                return v
        return None

    def tune_variants(self, params: Params) -> list[dict[str, int]]:
        """The default first, then each of LWS x X_BLOCKS that fits the device."""
        first = self.default_variant(params)
        if first is None:
            return [{}]
        out = [first]
        for lx, ly in LWS:
            for xb in X_BLOCKS:
                v = {"lx": lx, "ly": ly, "xb": xb}
                if v != first and self._fits(params, v):
                    out.append(v)
        return out

    def jit_constants(self, params: Params, v: dict[str, int] | None = None) -> JitConstants:
        """Tensors, conv geometry and XB."""
        v = v or self.default_variant(params) or {"lx": 1, "ly": 1, "xb": 1}
        j = super().jit_constants(params)
        a = params.attrs_as(ConvolutionAttrs)
        _, _, kh, kw = params.inputs[1].shape
        j.update({"STRIDE_Y": a.stride[0], "STRIDE_X": a.stride[1],
                  "DILATION_Y": a.dilation[0], "DILATION_X": a.dilation[1],
                  "PAD_Y": a.pad[0], "PAD_X": a.pad[1],
                  "FILTER_SIZE_Y": kh, "FILTER_SIZE_X": kw, "BIAS_TERM": int(len(params.inputs) > 2),
                  "XB": v["xb"]})
        return j

    def dispatch(self, params: Params, v: dict[str, int] | None = None
                 ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (ceil(ceil(OW/XB)/LX)*LX, ceil(OH/LY)*LY, N*C), lws (LX, LY, 1)."""
        v = v or self.default_variant(params) or {"lx": 1, "ly": 1, "xb": 1}
        b, f, oh, ow = params.output.dims4
        lx, ly = v["lx"], v["ly"]
        nx = -(-ow // v["xb"])
        return (-(-nx // lx) * lx, -(-oh // ly) * ly, b * f), (lx, ly, 1)

    def kernel_data(self, params: Params, variant: dict[str, int] | None = None) -> KernelData:
        """One enqueue with the variant's lws and XB (the default from ``params.caps`` when None or empty)."""
        v = variant or None
        jit = self.jit_constants(params, v)
        jit.update(fused_ops_jit(params.fused_ops))
        args = self.args(params) + [Arg("input", i) for op in params.fused_ops for i in op.dep_indices]
        entry, src = self.make_source(jit)
        gws, lws = self.dispatch(params, v)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, args)])
