"""mvn_gpu_wg: mean-variance normalization for GPUs, one work-group per normalized group, the mean and the variance
by ``__local`` tree reductions."""

from __future__ import annotations

from cldnn_py.ops import MVNAttrs, mvn_scale_offset
from cldnn_py.ops.elementwise import float_literal

from ...common.gpu_workgroup import flat_lws, pow2_ge
from ...common.nd_index import MAX_RANK, nd_check, nd_jit
from ...common.nd_reduce import normalize_axes, reduce_jit
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, ClKernelData, KernelBase, KernelData
from ...params import Params
from ...selector import register

_RESULT = {"normalized": 0, "mean": 1, "inv_std_dev": 2}
_F32 = 4


def _group_size(params: Params) -> int:
    x = params.inputs[0]
    n = 1
    for ax in normalize_axes(params.attrs_as(MVNAttrs).axes, x.rank):
        n *= x.shape[ax]
    return n


@register
class MVNKernelGpuWg(KernelBase):
    """MVN as ``mvn_ref`` (ONNX InstanceNormalization / LayerNormalization; the work-group-per-group shape of
    clDNN's ``mvn_gpu_bfyx_opt``, own code): mean = Σx / R, var = Σ(x − mean)² / R (two passes, biased),
    y = (x − mean)·(var + eps)^-½ (or x − mean), times scale plus bias; or only the mean / inv_std_dev.

    Inputs: x of rank 1-6 (any format up to rank 4, unpadded bfyx for 5-6), then scale and bias when given.
    gws = (groups·L,), lws = (L,), L = the power of two covering the group size R, at most 256 (or the device's
    limit); work-item i visits elements i, i + L, ... of its group; Σx and Σ(x − mean)² are ``__local`` tree
    reductions (4·L bytes of local memory), then every work-item writes its elements (the statistics: work-item 0).
    """

    name = "mvn_gpu_wg"
    primitive = "mvn"
    tier = "gpu"
    n_data_inputs = None

    def validate(self, params: Params) -> str | None:
        """As mvn_ref, and the local array fits half the local memory."""
        a = params.attrs_as(MVNAttrs)
        want = 1 + int(bool(a.has_scale)) + int(bool(a.has_bias))
        if len(params.inputs) != want:
            return f"expected {want} inputs (x[, scale][, bias]), got {len(params.inputs)}"
        try:
            normalize_axes(a.axes, params.inputs[0].rank)
        except ValueError as e:
            return str(e)
        if self._lws(params, {}) * _F32 > params.caps.local_mem_bytes // 2:
            return f"{self._lws(params, {}) * _F32} bytes of local memory exceed half of {params.caps.local_mem_bytes}"
        return nd_check(params.inputs, params.output)

    def priority(self, params: Params) -> int:
        """FORCE_PRIORITY_3: ahead of mvn_ref in the gpu tier."""
        return FORCE_PRIORITY_3

    def _lws(self, params: Params, variant: dict[str, int]) -> int:
        return min(flat_lws(params.caps, variant.get("lws", 256)), pow2_ge(_group_size(params)))

    def tune_variants(self, params: Params) -> list[dict[str, int]]:
        """Work-group sizes 64, 128 and 256 (each capped by the group and the device)."""
        return [{"lws": 64}, {"lws": 128}, {"lws": 256}]

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, IDX6 macros, the group enumeration, EPSILON, MVN_RESULT, NORMALIZE_VARIANCE, ``STATS_INDEX``
        and ``SCALE_INDEX`` / ``BIAS_INDEX`` (as mvn_ref)."""
        j = super().jit_constants(params)
        x = params.inputs[0]
        a = params.attrs_as(MVNAttrs)
        for i, t in enumerate(params.inputs):
            j.update(nd_jit(f"INPUT{i}", t))
        j.update(nd_jit("OUTPUT", params.output))
        axes = normalize_axes(a.axes, x.rank)
        j.update(reduce_jit(x, axes))
        stats = ["0" if i in axes else f"c{i}" for i in range(MAX_RANK)]
        j.add("STATS_INDEX", f"OUTPUT_IDX6({', '.join(stats)})")
        n = 1
        for flag, macro in (("has_scale", "SCALE_INDEX"), ("has_bias", "BIAS_INDEX")):
            if getattr(a, flag):
                t = params.inputs[n]
                off = mvn_scale_offset(a.scale_axis, x.rank, t.rank)
                sc = ["0" if s == 1 else f"c{off + i}" for i, s in enumerate(t.shape)]
                sc += ["0"] * (MAX_RANK - len(sc))
                j.add(macro, f"INPUT{n}_IDX6({', '.join(sc)})")
                j.add(f"{macro}_BUF", f"input{n}")
                n += 1
        j.update({"EPSILON": float_literal(a.epsilon), "MVN_RESULT": _RESULT[a.result],
                  "NORMALIZE_VARIANCE": bool(a.normalize_variance),
                  "HAS_SCALE": bool(a.has_scale), "HAS_BIAS": bool(a.has_bias)})
        return j

    def kernel_data(self, params: Params, variant: dict[str, int] | None = None) -> KernelData:
        """One enqueue: gws = (groups·L,), lws = (L,), with MVN_LWS = L."""
        lws = self._lws(params, variant or {})
        jit = self.jit_constants(params)
        jit.add("MVN_LWS", lws)
        groups = params.inputs[0].count() // _group_size(params)
        entry, src = self.make_source(jit)
        return KernelData(self.name, [ClKernelData(entry, src, (groups * lws,), (lws,), self.args(params))])
