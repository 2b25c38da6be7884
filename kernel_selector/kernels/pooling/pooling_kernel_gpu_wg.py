"""pooling_gpu_wg: 2-D pooling for GPUs; a window variant (one work-item per output element in 2-D work-groups)
and a global variant (one work-group per (b, f) plane with a ``__local`` tree reduction)."""

from __future__ import annotations

from cldnn_py.ops import PoolingAttrs, PoolingMode

from ...common.gpu_workgroup import flat_lws, xy_dispatch
from ...common.pooling import POOL_MODE_CODE, pooling_window
from ...jitter import JitConstants, fused_ops_jit
from ...kernel_base import FORCE_PRIORITY_3, Arg, ClKernelData, KernelBase, KernelData
from ...params import FLOATS, Params, SupportedKey
from ...selector import register

GLOBAL_MIN_PLANE = 256  # H*W from which a whole-plane window uses the work-group reduction
_F32 = 4


def _is_whole_plane(params: Params) -> bool:
    """True when one window covers the whole (unpadded, undilated) plane: global pooling or its equivalent."""
    a = params.attrs_as(PoolingAttrs)
    k, _, pb, pe = pooling_window(params)
    _, _, h, w = params.inputs[0].shape
    d = (1, 1) if a.global_pooling else tuple(a.dilation)
    oy, ox = params.output.shape[2], params.output.shape[3]
    return k == (h, w) and pb == (0, 0) and pe == (0, 0) and d == (1, 1) and (oy, ox) == (1, 1)


@register
class PoolingKernelGpuWg(KernelBase):
    """2-D pooling as ``pooling_ref`` (max / average counting pads / average_no_padding; ceil mode, asymmetric
    pads, dilation, global pooling) for GPUs (after clDNN's ``pooling_gpu_ref`` / ``pooling_gpu_int8_ref`` launch
    shape; the global reduction after the usual work-group tree reduction, e.g. NVIDIA's reduction whitepaper).

    Input (N, C, H, W) and output (N, C, OH, OW) f32 or f16 (storage, each its own; float accumulation and a
    float ``__local`` array) in any format, padded or not (GET_INDEX macros).

    - variant ``global=0`` (window): gws = (OW, OH, C·N) with OW, OH rounded up to lws, lws = (lx, ly, 1): lx the
      power of two covering OW up to 32, lx·ly <= 256; x fastest, a guard drops the tail. No local memory.
    - variant ``global=1`` (whole plane, chosen when one unpadded window covers an H·W >= 256 plane): gws =
      (L, C·N), lws = (L, 1), L = 256 (or the device's smaller limit); work-item i folds the plane elements
      i, i + L, ... (coalesced on bfyx), then a ``__local`` tree of log2(L) steps; 4·L bytes of local memory.

    Fused ops (activations, eltwise operands) through FUSED_OPS in both variants.
    """

    name = "pooling_gpu_wg"
    primitive = "pooling"
    tier = "gpu"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """OpenCL; f32 or f16 (storage, float arithmetic) in and out; any format, padding allowed."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """4-D input; work-groups of at least 32; the global variant's local array fits half the local memory."""
        if params.inputs[0].rank != 4:
            return f"input rank {params.inputs[0].rank} is not 4"
        if flat_lws(params.caps) < 32:
            return f"max work-group size {params.caps.max_work_group_size} < 32"
        return None

    def priority(self, params: Params) -> int:
        """FORCE_PRIORITY_3: ahead of pooling_ref in the gpu tier."""
        return FORCE_PRIORITY_3

    def _global_ok(self, params: Params) -> bool:
        lws = flat_lws(params.caps)
        return _is_whole_plane(params) and lws * _F32 <= params.caps.local_mem_bytes // 2

    def tune_variants(self, params: Params) -> list[dict[str, int]]:
        """{"global": 0} always; {"global": 1} too where one unpadded window covers the plane and L floats fit."""
        return [{"global": 0}, {"global": 1}] if self._global_ok(params) else [{"global": 0}]

    def default_variant(self, params: Params) -> dict[str, int]:
        """The global reduction for whole-plane windows of H·W >= 256 (and fitting local memory), else window."""
        _, _, h, w = params.inputs[0].shape
        return {"global": int(self._global_ok(params) and h * w >= GLOBAL_MIN_PLANE)}

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus the window (POOL_SIZE_*, STRIDE_*, DILATION_*, PAD_*, PAD_END_*) and POOL_MODE."""
        j = super().jit_constants(params)
        k, s, pb, pe = pooling_window(params)
        a = params.attrs_as(PoolingAttrs)
        d = (1, 1) if a.global_pooling else a.dilation
        j.update({"POOL_SIZE_Y": k[0], "POOL_SIZE_X": k[1], "STRIDE_Y": s[0], "STRIDE_X": s[1],
                  "DILATION_Y": d[0], "DILATION_X": d[1],
                  "PAD_Y": pb[0], "PAD_X": pb[1], "PAD_END_Y": pe[0], "PAD_END_X": pe[1],
                  "POOL_MODE": POOL_MODE_CODE[PoolingMode(a.mode)]})
        return j

    def kernel_data(self, params: Params, variant: dict[str, int] | None = None) -> KernelData:
        """One enqueue of the chosen variant (default: :meth:`default_variant`)."""
        v = variant if variant is not None else self.default_variant(params)
        glob = bool(v.get("global", 0))
        if glob and not self._global_ok(params):
            raise ValueError("the global variant needs one unpadded window over the whole plane")
        jit = self.jit_constants(params)
        b, f, _, _ = params.output.dims4
        if glob:
            lws_n = flat_lws(params.caps)
            jit.update({"POOL_GLOBAL": 1, "POOL_LWS": lws_n})
            gws: tuple[int, ...] = (lws_n, f * b)
            lws: tuple[int, ...] = (lws_n, 1)
        else:
            jit.add("POOL_GLOBAL", 0)
            gws, lws = xy_dispatch(params.output.dims4[3], params.output.dims4[2], f * b, params.caps)
        jit.update(fused_ops_jit(params.fused_ops))
        args = self.args(params) + [Arg("input", i) for op in params.fused_ops for i in op.dep_indices]
        entry, src = self.make_source(jit)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, args)])
