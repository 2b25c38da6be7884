"""convolution_gpu_direct: a work-group tiled direct convolution for GPUs (bfyx data, oiyx weights).

The portable GPU recipe (CLBlast's local-memory tiles, MNN's and ocl4dnn's direct convolutions; DESIGN.md §5b):
a 2-D work-group of TX x TY work-items computes a TX x TY block of output pixels for OCB output channels. For
each slice of ICS input channels the work-group cooperatively loads the input patch its windows read (the halo
included, zeros outside the tensor) and the OCB x ICS x KH x KW weights into ``__local`` memory, synchronizes,
and every work-item accumulates OCB output channels of its pixel in registers from the local tiles.
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
TILES = ((8, 8), (16, 8), (16, 16), (32, 8))
OC_BLOCKS = (4, 8)
IC_SLICES = (16, 8, 4, 2, 1)


def _slices(icg: int) -> list[int]:
    """Input-channel slice sizes to try, widest first: IC_SLICES clamped to C/groups."""
    return sorted({min(s, icg) for s in IC_SLICES}, reverse=True)


def _geometry(params: Params) -> tuple[int, int, int, int, int, int, int]:
    """(C/groups, OC/groups, KH, KW, stride y, stride x, groups) of the convolution."""
    a = params.attrs_as(ConvolutionAttrs)
    oc, icg, kh, kw = params.inputs[1].shape
    return icg, oc // a.groups, kh, kw, a.stride[0], a.stride[1], a.groups


def dense_plain_reason(params: Params) -> str | None:
    """Why a convolution is not one the GPU tier's dense bfyx kernels take (rank 4; weights plain unpadded
    oiyx/bfyx; bias OC plain unpadded values; weights and bias f32 or f16; not depthwise, which
    convolution_gpu_depthwise runs), or None."""
    x, w = params.inputs[0], params.inputs[1]
    if x.rank != 4:
        return f"input rank {x.rank} is not 4"
    if w.format not in (Format.bfyx, Format.oiyx) or not w.padding.is_zero:
        return f"weights format {w.format.value} (padded={not w.padding.is_zero}) is not plain oiyx"
    if len(params.inputs) > 2:
        bias = params.inputs[2]
        if bias.format.is_blocked or not bias.padding.is_zero or bias.count() != w.shape[0]:
            return f"bias must be {w.shape[0]} plain unpadded values, got {bias}"
    g = params.attrs_as(ConvolutionAttrs).groups
    if g > 1 and g == x.dims4[1] == w.shape[0]:
        return "depthwise (groups == C == OC): convolution_gpu_depthwise runs it"
    return float_reason(params.inputs[1:3])


def local_bytes(params: Params, tx: int, ty: int, ocb: int, ics: int) -> int:
    """Local memory of one work-group in bytes: the input patch ICS x TH x TW plus the weights OCB x ICS x KH x KW
    (f32), with TH = (TY - 1) * SY + (KH - 1) * DY + 1 and TW likewise."""
    a = params.attrs_as(ConvolutionAttrs)
    _, _, kh, kw, sy, sx, _ = _geometry(params)
    th = (ty - 1) * sy + (kh - 1) * a.dilation[0] + 1
    tw = (tx - 1) * sx + (kw - 1) * a.dilation[1] + 1
    return 4 * (ics * th * tw + ocb * ics * kh * kw)


@register
class ConvolutionKernelGpuDirect(KernelBase):
    """Direct convolution with ``__local`` input and weight tiles per work-group.

    Inputs: INPUT0 data (N, C, H, W) ``bfyx`` (padding allowed: read through INPUT0_GET_INDEX, bounds always
    checked, so the padding need not hold zeros), INPUT1 weights (OC, C/groups, KH, KW) plain oiyx/bfyx unpadded,
    INPUT2 bias (OC,) plain unpadded when present. Output (N, OC, OH, OW) ``bfyx``, padding allowed. Each tensor
    f32 or f16 (half storage; the local tiles and accumulators are float), in any mix.
    Any KxK (1x1 included), stride, dilation, asymmetric pads, groups (depthwise goes to convolution_gpu_depthwise).
    Bias and fused ops (activations, eltwise with an operand) in the epilogue (FUSED_OPS).

    Variant ``{"tx", "ty", "ocb", "ics"}``: gws (ceil(OW/TX)*TX, ceil(OH/TY)*TY, N * groups * ceil(OCg/OCB)),
    lws (TX, TY, 1); local memory :func:`local_bytes` = 4 * (ICS*TH*TW + OCB*ICS*KH*KW) bytes, kept at most half of
    ``caps.local_mem_bytes``. Work-items outside the output and OC tails take part in the loads and barriers and
    store nothing.
    """

    name = "convolution_gpu_direct"
    primitive = "convolution"
    tier = "gpu"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16, bfyx in and out, padding allowed."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS, input_formats=PLAIN, output_formats=PLAIN)

    def validate(self, params: Params) -> str | None:
        """Rank 4; plain unpadded weights and bias; not depthwise; the default tile fits the device."""
        reason = dense_plain_reason(params)
        if reason is not None:
            return reason
        v = self.default_variant(params)
        if v is None:
            return (f"no tile fits: local memory {params.caps.local_mem_bytes} bytes, work-group "
                    f"{params.caps.max_work_group_size}, work-item sizes {params.caps.max_work_item_sizes}")
        return None

    def priority(self, params: Params) -> int:
        """Well below the reference."""
        return FORCE_PRIORITY_3

    def _fits(self, params: Params, v: dict[str, int]) -> bool:
        caps = params.caps
        mx = caps.max_work_item_sizes
        return (v["tx"] * v["ty"] <= caps.max_work_group_size and v["tx"] <= mx[0] and v["ty"] <= mx[1]
                and local_bytes(params, v["tx"], v["ty"], v["ocb"], v["ics"]) <= caps.local_mem_bytes // 2)

    def default_variant(self, params: Params) -> dict[str, int] | None:
        """8x8 pixels (16x8 for rows of 16 or more), 8 output channels per work-item (4 for narrow groups), the
        widest input-channel slice (16, 8 ... 1, clamped to C/groups) whose tiles fit half the local memory."""
        icg, ocg = _geometry(params)[:2]
        ow = params.output.dims4[3]
        tx, ty = (16, 8) if ow >= 16 else (8, 8)
        ocb = 8 if ocg >= 8 else 4
        for t in ((tx, ty), (8, 8), (8, 4), (4, 4)):
            for ics in _slices(icg):
                v = {"tx": t[0], "ty": t[1], "ocb": ocb, "ics": ics}
                if self._fits(params, v):
                    return v
        return None

    def tune_variants(self, params: Params) -> list[dict[str, int]]:
        """The default first, then every tile of TILES x OC_BLOCKS x IC_SLICES (clamped to C/groups) that fits."""
        first = self.default_variant(params)
        if first is None:
            return [{}]
        icg = _geometry(params)[0]
        out = [first]
        for tx, ty in TILES:
            for ocb in OC_BLOCKS:
                for ics in _slices(icg):
                    v = {"tx": tx, "ty": ty, "ocb": ocb, "ics": ics}
                    if v != first and self._fits(params, v):
                        out.append(v)
        return out

    def jit_constants(self, params: Params, v: dict[str, int] | None = None) -> JitConstants:
        """Tensors, conv geometry, tile sizes TX/TY/OCB/ICS and local tile extents TILE_H/TILE_W."""
        v = v or self.default_variant(params) or {"tx": 8, "ty": 8, "ocb": 4, "ics": 1}
        j = super().jit_constants(params)
        a = params.attrs_as(ConvolutionAttrs)
        icg, ocg, kh, kw, sy, sx, g = _geometry(params)
        j.update({"STRIDE_Y": sy, "STRIDE_X": sx, "DILATION_Y": a.dilation[0], "DILATION_X": a.dilation[1],
                  "PAD_Y": a.pad[0], "PAD_X": a.pad[1], "GROUPS": g,
                  "FILTER_IFM_NUM": icg, "FILTER_OFM_PER_GROUP": ocg,
                  "FILTER_SIZE_Y": kh, "FILTER_SIZE_X": kw, "BIAS_TERM": int(len(params.inputs) > 2),
                  "TX": v["tx"], "TY": v["ty"], "OCB": v["ocb"], "ICS": v["ics"],
                  "OC_BLOCKS": -(-ocg // v["ocb"]),
                  "TILE_H": (v["ty"] - 1) * sy + (kh - 1) * a.dilation[0] + 1,
                  "TILE_W": (v["tx"] - 1) * sx + (kw - 1) * a.dilation[1] + 1})
        return j

    def dispatch(self, params: Params, v: dict[str, int] | None = None
                 ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (ceil(OW/TX)*TX, ceil(OH/TY)*TY, N * groups * ceil(OCg/OCB)), lws (TX, TY, 1)."""
        v = v or self.default_variant(params) or {"tx": 8, "ty": 8, "ocb": 4, "ics": 1}
        b, _, oh, ow = params.output.dims4
        _, ocg, _, _, _, _, g = _geometry(params)
        tx, ty = v["tx"], v["ty"]
        return (-(-ow // tx) * tx, -(-oh // ty) * ty, b * g * -(-ocg // v["ocb"])), (tx, ty, 1)

    def kernel_data(self, params: Params, variant: dict[str, int] | None = None) -> KernelData:
        """One enqueue with the variant's tiles (the default from ``params.caps`` when None or empty)."""
        v = variant or None
        jit = self.jit_constants(params, v)
        jit.update(fused_ops_jit(params.fused_ops))
        args = self.args(params) + [Arg("input", i) for op in params.fused_ops for i in op.dep_indices]
        entry, src = self.make_source(jit)
        gws, lws = self.dispatch(params, v)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, args)])
