"""convolution_gpu_igemm: a convolution as an implicit GEMM for GPUs (bfyx data, oiyx weights, batch folded into N).

The portable GPU recipe for convolutions (DESIGN.md §5b; CLBlast's Xgemm tiles, the implicit-GEMM formulation of
cuDNN's IMPLICIT_GEMM algorithm, Chetlur et al. 2014, "cuDNN: Efficient Primitives for Deep Learning"): per group,
C[m][n] = Σ_k A[m][k] · B[k][n] with m the output channel, k = (c, ky, kx) (a weight row of oiyx, contiguous) and
n = (b, oy, ox) over the whole batch; B is the im2col matrix, never stored: each element is gathered from the input
when its ``__local`` tile is loaded. Unlike ``convolution_gpu_direct`` (one work-item per output pixel, a
work-group per TX x TY pixel block of one image), the tile spans images and rows, so 7 x 7 planes and batches keep
every work-item busy, and each work-item holds a WPT x WPT register block (16 FMAs per two local loads at WPT 4).
"""

from __future__ import annotations

from cldnn_py.layout import Format
from cldnn_py.ops import ConvolutionAttrs

from ...common.gpu_tile import FLOAT_BYTES, caps_reason
from ...jitter import JitConstants, fused_ops_jit
from ...kernel_base import FORCE_PRIORITY_2, Arg, ClKernelData, KernelBase, KernelData
from ...params import FLOATS, Params, SupportedKey
from ...selector import register
from .convolution_kernel_gpu_direct import dense_plain_reason

PLAIN = frozenset({Format.bfyx})
# {"tx", "ty"} work-items, WPT x WPT outputs each, a K step of KWG; MWG = TY·WPT, NWG = TX·WPT. "vec": the local
# reads: 1 = each work-item's rows and columns contiguous, read as float4/float2 vectors; 0 = CLBlast's strided
# layout, scalar reads. Each tile's own "vec" is its measured better form (H100); tuning tries both.
TILES = ({"tx": 16, "ty": 16, "wpt": 4, "kwg": 16, "vec": 0},   # 64 x 64, 256 work-items, 8.3 KiB of local memory
         {"tx": 8, "ty": 8, "wpt": 4, "kwg": 16, "vec": 1},     # 32 x 32, 64 work-items, 4.2 KiB
         {"tx": 8, "ty": 8, "wpt": 2, "kwg": 16, "vec": 0},     # 16 x 16, 64 work-items, 2.3 KiB
         {"tx": 16, "ty": 16, "wpt": 2, "kwg": 16, "vec": 1},   # 32 x 32, 256 work-items (tuning only)
         {"tx": 16, "ty": 16, "wpt": 8, "kwg": 8, "vec": 0})    # 128 x 128, 256 work-items (tuning only)
DEFAULT_TILES = 3
"""The default is one of the first DEFAULT_TILES of TILES, largest first: the first that gives every compute unit
GROUPS_PER_CU work-groups, else the last. Measured on an H100 (132 compute units; benchmarks/gpu_conv_kernels.py,
15 layer shapes of ResNet-50, MobileNetV2, YOLO and ShuffleNet at batch 1 and 8): this rule picks the fastest tile
or one within 10% of it on 29 of the 30 (the miss: 13% on ShuffleNet's grouped 1x1 at batch 8); the 128 x 128
tile was never the fastest by more than noise and the 32 x 32 tile of 256 work-items never clearly. Vector reads
made the 32 x 32 tile of 64 work-items 1.2-2.7x faster and the two others 5-30% slower."""
GROUPS_PER_CU = 1.5


def local_bytes(v: dict[str, int]) -> int:
    """``__local`` bytes of a tile: KWG x (MWG + 4) of A (padding columns: 1 with scalar reads, 4 with vector
    reads; 4 is counted) plus KWG x NWG of B, f32."""
    return FLOAT_BYTES * v["kwg"] * (v["ty"] * v["wpt"] + 4 + v["tx"] * v["wpt"])


def gemm_dims(params: Params) -> tuple[int, int, int, int]:
    """(M, N, K, groups) of the implicit GEMM: M = OC/groups, N = batch·OH·OW, K = C/groups·KH·KW."""
    a = params.attrs_as(ConvolutionAttrs)
    oc, icg, kh, kw = params.inputs[1].shape
    b, _, oh, ow = params.output.dims4
    return oc // a.groups, b * oh * ow, icg * kh * kw, a.groups


def work_groups(params: Params, v: dict[str, int]) -> int:
    """Work-groups of the dispatch with tile ``v``: ceil(M / MWG) · ceil(N / NWG) · groups."""
    m, n, _, g = gemm_dims(params)
    return -(-m // (v["ty"] * v["wpt"])) * -(-n // (v["tx"] * v["wpt"])) * g


@register
class ConvolutionKernelGpuIgemm(KernelBase):
    """Implicit-GEMM convolution with ``__local`` tiles of weights and gathered input, batch folded into N.

    Inputs: INPUT0 data (N, C, H, W) ``bfyx`` (padding allowed, read through the pitches, bounds always
    checked), INPUT1 weights (OC, C/groups, KH, KW) oiyx/bfyx unpadded, INPUT2 bias (OC,) plain unpadded when
    present. Output (N, OC, OH, OW) ``bfyx``, padding allowed. Each tensor f32 or f16 (half storage; the local
    tiles and accumulators are float), in any mix. Any KxK (1x1 included), stride, dilation,
    asymmetric pads, groups (depthwise goes to convolution_gpu_depthwise). Bias and fused ops in the epilogue.

    Variant ``{"tx", "ty", "wpt", "kwg", "vec"}`` (:data:`TILES`): gws (ceil(N / NWG)·TX,
    ceil(M / MWG)·TY, groups), lws (TX, TY, 1), :func:`local_bytes` of local memory (at most half the device's);
    KWG·MWG and KWG·NWG must be multiples of TX·TY (each work-item loads a fixed count per K step). The default
    tile: :data:`DEFAULT_TILES`.
    """

    name = "convolution_gpu_igemm"
    primitive = "convolution"
    tier = "gpu"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16, bfyx in and out, padding allowed."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS, input_formats=PLAIN, output_formats=PLAIN)

    def variant_reason(self, params: Params, v: dict[str, int]) -> str | None:
        """Why tile ``v`` cannot run here (loads not a whole number per work-item, work-group or local memory too
        large for the device), or None."""
        wg = v["tx"] * v["ty"]
        if (v["kwg"] * v["ty"] * v["wpt"]) % wg or (v["kwg"] * v["tx"] * v["wpt"]) % wg:
            return f"tile {v}: KWG·MWG and KWG·NWG must be multiples of the {wg} work-items"
        if v.get("vec", 0) and v["wpt"] not in (2, 4, 8):
            return f"tile {v}: vector reads need WPT 2, 4 or 8"
        return caps_reason(params.caps, (v["tx"], v["ty"]), local_bytes(v))

    def default_variant(self, params: Params) -> dict[str, int] | None:
        """The first of the DEFAULT_TILES that fits the device and gives GROUPS_PER_CU work-groups per compute
        unit, else the last of them that fits (then any tile that fits); None when no tile fits the device."""
        fits = [dict(v) for v in TILES[:DEFAULT_TILES] if self.variant_reason(params, v) is None]
        if not fits:
            rest = [dict(v) for v in TILES[DEFAULT_TILES:] if self.variant_reason(params, v) is None]
            return rest[0] if rest else None
        want = GROUPS_PER_CU * max(1, params.caps.compute_units)
        for v in fits:
            if work_groups(params, v) >= want:
                return v
        return fits[-1]

    def validate(self, params: Params) -> str | None:
        """Rank 4; plain unpadded f32 or f16 weights and bias; not depthwise; a tile fits the device."""
        reason = dense_plain_reason(params)
        if reason is not None:
            return reason
        if self.default_variant(params) is None:
            return (f"no tile fits: local memory {params.caps.local_mem_bytes} bytes, work-group "
                    f"{params.caps.max_work_group_size}, work-item sizes {params.caps.max_work_item_sizes}")
        return None

    def priority(self, params: Params) -> int:
        """FORCE_PRIORITY_2: ahead of convolution_gpu_direct (FORCE_PRIORITY_3) on every shape. On an H100 its
        default tile was 1.15-3.9x faster than the direct kernel on all 30 measured layer/batch cases (the direct
        kernel's work-groups cover TX x TY pixels of one image, so 7 x 7 and 14 x 14 planes idle most of them)."""
        return FORCE_PRIORITY_2

    def tune_variants(self, params: Params) -> list[dict[str, int]]:
        """The default first, then every other tile of :data:`TILES` that fits, in both read forms (``vec``)."""
        first = self.default_variant(params)
        if first is None:
            return [{}]
        every = [dict(v, vec=vec) for v in TILES for vec in (v["vec"], 1 - v["vec"])]
        return [first] + [v for v in every if v != first and self.variant_reason(params, v) is None]

    def jit_constants(self, params: Params, variant: dict[str, int] | None = None) -> JitConstants:
        """Tensors, conv geometry, TX/TY/WPT/KWG/MWG/NWG, VEC."""
        v = variant or self.default_variant(params) or dict(TILES[-1])
        j = super().jit_constants(params)
        a = params.attrs_as(ConvolutionAttrs)
        oc, icg, kh, kw = params.inputs[1].shape
        j.update({"STRIDE_Y": a.stride[0], "STRIDE_X": a.stride[1], "DILATION_Y": a.dilation[0],
                  "DILATION_X": a.dilation[1], "PAD_Y": a.pad[0], "PAD_X": a.pad[1], "GROUPS": a.groups,
                  "FILTER_IFM_NUM": icg, "FILTER_OFM_PER_GROUP": oc // a.groups,
                  "FILTER_SIZE_Y": kh, "FILTER_SIZE_X": kw, "BIAS_TERM": int(len(params.inputs) > 2),
                  "TX": v["tx"], "TY": v["ty"], "WPT": v["wpt"], "KWG": v["kwg"],
                  "MWG": v["ty"] * v["wpt"], "NWG": v["tx"] * v["wpt"], "VEC": int(v.get("vec", 0))})
        return j

    def dispatch(self, params: Params, variant: dict[str, int] | None = None
                 ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (ceil(N / NWG)·TX, ceil(M / MWG)·TY, groups), lws (TX, TY, 1)."""
        v = variant or self.default_variant(params) or dict(TILES[-1])
        m, n, _, g = gemm_dims(params)
        nwg, mwg = v["tx"] * v["wpt"], v["ty"] * v["wpt"]
        return (-(-n // nwg) * v["tx"], -(-m // mwg) * v["ty"], g), (v["tx"], v["ty"], 1)

    def kernel_data(self, params: Params, variant: dict[str, int] | None = None) -> KernelData:
        """One enqueue with the variant's tile (the default when None or empty). Raises ValueError for a tile that
        does not fit the device (:meth:`variant_reason`)."""
        v = variant or self.default_variant(params) or dict(TILES[-1])
        bad = self.variant_reason(params, v)
        if bad:
            raise ValueError(f"{self.name}: {bad}")
        jit = self.jit_constants(params, v)
        jit.update(fused_ops_jit(params.fused_ops))
        args = self.args(params) + [Arg("input", i) for op in params.fused_ops for i in op.dep_indices]
        entry, src = self.make_source(jit)
        gws, lws = self.dispatch(params, v)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, args)])
