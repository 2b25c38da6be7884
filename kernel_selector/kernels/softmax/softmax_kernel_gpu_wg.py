"""softmax_gpu_wg: softmax / log-softmax for GPUs, one work-group per row, ``__local`` tree reductions."""

from __future__ import annotations

from cldnn_py.ops import SoftmaxAttrs

from ...common.gpu_workgroup import flat_lws, pow2_ge
from ...common.nd_index import nd_check, nd_jit
from ...common.nd_reduce import reduce_jit
from ...common.softmax import softmax_axes
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, ClKernelData, KernelBase, KernelData
from ...params import Params
from ...selector import register

_F32 = 4


def _row_size(params: Params) -> int:
    n = 1
    for a in softmax_axes(params):
        n *= params.inputs[0].shape[a]
    return n


@register
class SoftmaxKernelGpuWg(KernelBase):
    """Softmax y = exp(x - max) / Σ exp(x - max), or log-softmax y = x - max - log Σ exp(x - max), over the rows
    of ``softmax_ref`` (the normalized axes of :func:`softmax_axes`), for GPUs (the work-group-per-row shape of
    clDNN's ``softmax_gpu_items_class_optimized`` and of the usual CUDA block softmax; own code).

    INPUT0 of rank 1-6 (any format up to rank 4, unpadded bfyx for rank 5-6; padded allowed up to rank 4), the
    output the same shape in any format. gws = (rows·L,), lws = (L,), L = the power of two covering the row, at
    most 256 (or the device's limit); work-item i visits the row elements i, i + L, ... (consecutive work-items,
    consecutive addresses when the row is the innermost axis), three passes: max and Σ exp each by a ``__local``
    tree reduction of log2(L) steps (4·L bytes of local memory), then the normalized write.
    """

    name = "softmax_gpu_wg"
    primitive = "softmax"
    tier = "gpu"

    def validate(self, params: Params) -> str | None:
        """The axis in [-rank, rank); ranks 5-6 plain unpadded bfyx; the local array fits half the local memory."""
        rank, axis = params.inputs[0].rank, int(params.attrs_as(SoftmaxAttrs).axis)
        if not -rank <= axis < rank:
            return f"axis {axis} out of range for rank {rank}"
        if self._lws(params, {}) * _F32 > params.caps.local_mem_bytes // 2:
            return f"{self._lws(params, {}) * _F32} bytes of local memory exceed half of {params.caps.local_mem_bytes}"
        return nd_check(params.inputs, params.output)

    def priority(self, params: Params) -> int:
        """FORCE_PRIORITY_3: ahead of softmax_ref in the gpu tier."""
        return FORCE_PRIORITY_3

    def _lws(self, params: Params, variant: dict[str, int]) -> int:
        want = variant.get("lws", 256)
        return min(flat_lws(params.caps, want), pow2_ge(_row_size(params)))

    def tune_variants(self, params: Params) -> list[dict[str, int]]:
        """Work-group sizes 64, 128 and 256 (each capped by the row and the device)."""
        return [{"lws": 64}, {"lws": 128}, {"lws": 256}]

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, their IDX6 macros, the row enumeration (OUTER_/REDUCE_ macros) and SOFTMAX_LOG."""
        j = super().jit_constants(params)
        j.update(nd_jit("INPUT0", params.inputs[0]))
        j.update(nd_jit("OUTPUT", params.output))
        j.update(reduce_jit(params.inputs[0], softmax_axes(params)))
        j.add("SOFTMAX_LOG", bool(params.attrs_as(SoftmaxAttrs).log))
        return j

    def kernel_data(self, params: Params, variant: dict[str, int] | None = None) -> KernelData:
        """One enqueue: gws = (rows·L,), lws = (L,), with SOFTMAX_LWS = L."""
        lws = self._lws(params, variant or {})
        jit = self.jit_constants(params)
        jit.add("SOFTMAX_LWS", lws)
        rows = params.inputs[0].count() // _row_size(params)
        entry, src = self.make_source(jit)
        return KernelData(self.name, [ClKernelData(entry, src, (rows * lws,), (lws,), self.args(params))])
