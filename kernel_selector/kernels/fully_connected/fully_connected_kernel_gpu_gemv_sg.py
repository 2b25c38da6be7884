"""fully_connected_gpu_gemv_sg: GPU-tier GEMV inner product for batch 1 whose row sums are sub-group reductions
(``sub_group_reduce_add``): no ``__local`` memory and no barrier on devices with sub-groups."""

from __future__ import annotations

from cldnn_py.layout import Format

from ...common.fc_plain import fc_dims, fc_plain_jit, fc_plain_reason
from ...common.gpu_tile import FLOAT_BYTES, caps_reason
from ...jitter import JitConstants, fused_ops_jit
from ...kernel_base import (
    FORCE_PRIORITY_1,
    FORCE_PRIORITY_5,
    FORCE_PRIORITY_9,
    Arg,
    ClKernelData,
    KernelBase,
    KernelData,
)
from ...params import Params, SupportedKey
from ...selector import register

EMULATED_WIDTH = 16
"""Sub-group width of the emulation (SG_NATIVE 0): 16 consecutive work-items, Intel's usual width."""
VARIANTS = ({"lws": 128, "rows": 8}, {"lws": 64, "rows": 4}, {"lws": 256, "rows": 16}, {"lws": 128, "rows": 16})


def _local_bytes(v: dict[str, int], emulated: bool) -> int:
    return FLOAT_BYTES * v["lws"] if emulated else 0


@register
class FullyConnectedKernelGpuGemvSg(KernelBase):
    """Sub-group GEMV fully connected: y[n, m] = Σ_k x[n, k] · W[m, k] + bias[m], then the fused ops.

    Inputs as fully_connected_gpu_gemv: INPUT0 (N, ...) rank 2-4 f32 bfyx unpadded, flattened to (N, K); INPUT1
    weights (M, K) f32 bfyx unpadded; INPUT2 bias with M elements. Output (N, M) bfyx. A work-group of LWS
    work-items (default 128) owns ROWS (8) output rows of one batch item; its sub-groups take the rows in turn, the
    lanes of a sub-group stride over K (coalesced), and ``sub_group_reduce_add`` finishes each row, lane 0 adding the
    bias and the fused ops. gws (ceil(M / ROWS)·LWS, N), lws (LWS, 1).

    Needs ``cl_khr_subgroups`` or ``cl_intel_subgroups`` (any sub-group width: the kernel asks
    ``get_sub_group_size()``); ahead of fully_connected_gpu_gemv at batch 1 there (no local memory, no barrier).
    With ``BuildOptions(emulate_subgroups=True)`` on a device without sub-groups the collectives are emulated by 16
    work-items and a ``__local`` sum (``cldnn_sg_sum_emulated``), so the kernel's indexing runs and is checked on PoCL
    and Oclgrind; then it is never preferred. Origin: clDNN's sub-group fully-connected kernels
    (``fully_connected_gpu_bf_tiled`` reduces with sub-group collectives), and the CUDA warp-reduction GEMV.
    """

    name = "fully_connected_gpu_gemv_sg"
    primitive = "fully_connected"
    tier = "gpu"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32, input bfyx unpadded, output bfyx."""
        plain = frozenset({Format.bfyx})
        return SupportedKey(input_formats=plain, output_formats=plain, padded_inputs=False)

    @staticmethod
    def _emulated(params: Params) -> bool:
        return not params.caps.native_subgroups

    def _variant_reason(self, params: Params, v: dict[str, int]) -> str | None:
        emulated = self._emulated(params)
        if emulated and v["rows"] % (v["lws"] // EMULATED_WIDTH):
            return f"emulated sub-groups: rows {v['rows']} is not a multiple of {v['lws'] // EMULATED_WIDTH} sub-groups"
        return caps_reason(params.caps, (v["lws"], 1), _local_bytes(v, emulated))

    def default_variant(self, params: Params) -> dict[str, int]:
        """LWS 128 and 8 rows, or the first variant that fits the device."""
        for v in VARIANTS:
            if self._variant_reason(params, v) is None:
                return dict(v)
        return dict(VARIANTS[0])

    def validate(self, params: Params) -> str | None:
        """Sub-groups on the device (or emulated), plain operands, the default work-group fits."""
        bad = params.caps.subgroup_reason() or fc_plain_reason(params)
        if bad:
            return bad
        return self._variant_reason(params, self.default_variant(params))

    def priority(self, params: Params) -> int:
        """Native sub-groups at batch 1: FORCE_PRIORITY_1 (ahead of fully_connected_gpu_gemv); larger batches
        FORCE_PRIORITY_5; emulated: FORCE_PRIORITY_9 (only when forced or tuned)."""
        if self._emulated(params):
            return FORCE_PRIORITY_9
        return FORCE_PRIORITY_1 if fc_dims(params)[0] == 1 else FORCE_PRIORITY_5

    def tune_variants(self, params: Params) -> list[dict[str, int]]:
        """``{"lws", "rows"}``: the default first, then the others that fit."""
        first = self.default_variant(params)
        return [first] + [dict(v) for v in VARIANTS if v != first and self._variant_reason(params, v) is None]

    def jit_constants(self, params: Params, variant: dict[str, int] | None = None) -> JitConstants:
        """Tensors, FC_N/FC_K/FC_M, BIAS_TERM/BIAS_INDEX, LWS, ROWS, SG_NATIVE, SG_WIDTH (emulated width)."""
        v = variant or self.default_variant(params)
        j = super().jit_constants(params)
        j.update(fc_plain_jit(params))
        j.update({"LWS": v["lws"], "ROWS": v["rows"], "SG_NATIVE": 0 if self._emulated(params) else 1,
                  "SG_WIDTH": EMULATED_WIDTH})
        return j

    def dispatch(self, params: Params, variant: dict[str, int] | None = None
                 ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (ceil(M / ROWS)·LWS, N), lws (LWS, 1)."""
        v = variant or self.default_variant(params)
        n, _, m = fc_dims(params)
        return (-(-m // v["rows"]) * v["lws"], n), (v["lws"], 1)

    def kernel_data(self, params: Params, variant: dict[str, int] | None = None) -> KernelData:
        """One enqueue with the ``variant`` (default: :meth:`default_variant`) and the fused ops. Raises ValueError
        for a variant that does not fit the device."""
        v = variant or self.default_variant(params)
        bad = self._variant_reason(params, v)
        if bad:
            raise ValueError(f"{self.name}: variant {v}: {bad}")
        jit = self.jit_constants(params, v)
        jit.update(fused_ops_jit(params.fused_ops))
        args = self.args(params) + [Arg("input", i) for op in params.fused_ops for i in op.dep_indices]
        entry, src = self.make_source(jit)
        gws, lws = self.dispatch(params, v)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, args)])
