"""fully_connected_gpu_gemv: GPU-tier GEMV inner product for small batches (a work-group per block of output rows
and of up to 8 batch items, a ``__local`` tree reduction over K)."""

from __future__ import annotations

from cldnn_py.layout import Format

from ...common.fc_plain import fc_dims, fc_plain_jit, fc_plain_reason
from ...common.gpu_tile import FLOAT_BYTES, caps_reason
from ...jitter import JitConstants, fused_ops_jit
from ...kernel_base import FORCE_PRIORITY_2, FORCE_PRIORITY_5, Arg, ClKernelData, KernelBase, KernelData
from ...params import FLOATS, Params, SupportedKey
from ...selector import register

VARIANTS = ({"lws": 128, "rows": 4}, {"lws": 64, "rows": 4}, {"lws": 256, "rows": 4}, {"lws": 128, "rows": 8},
            {"lws": 64, "rows": 1})


MAX_BATCH_BLOCK = 8
"""Batch items a work-group computes together (each weight row is read once for all of them)."""
SMALL_BATCH = 16
"""Up to this batch the GEMV is preferred to fully_connected_gpu_tiled: the layer is bound by reading the weights
(measured on an H100: AlexNet's three FC layers at batch 8 took 2.5 ms in the tiled kernel, whose M = 8 rows fill
one eighth of a 64-row tile and whose 64 work-groups leave most of the GPU idle)."""


def _local_bytes(v: dict[str, int], nb: int = 1) -> int:
    return FLOAT_BYTES * v["lws"] * v["rows"] * nb


@register
class FullyConnectedKernelGpuGemv(KernelBase):
    """GEMV fully connected for GPUs: y[n, m] = Σ_k x[n, k] · W[m, k] + bias[m], then the fused ops.

    Inputs as fully_connected_gpu_tiled: INPUT0 (N, ...) rank 2-4 bfyx unpadded, flattened to (N, K); INPUT1
    weights (M, K) bfyx unpadded; INPUT2 bias with M elements, any shape. Output (N, M) bfyx. Each tensor f32 or
    f16 (half storage through the LOAD / STORE macros; sums and the ``__local`` tree in float). A work-group of
    LWS work-items (default 128, a power of two) owns ROWS (4) output rows of NB = min(N, 8) batch items: its
    work-items stride over K with step LWS (coalesced reads of x and of the weight rows, each weight read once for
    the NB items), keep NB x ROWS partial sums, and reduce them in a ``__local`` tree of NB x ROWS x LWS floats
    (2 KiB at batch 1, 16 KiB at NB 8; barriers only, no work-group collectives); work-item i < NB·ROWS adds the
    bias and applies ``FUSED_OPS`` to one (item, row). gws (ceil(M / ROWS)·LWS, ceil(N / NB)), lws (LWS, 1).
    Preferred up to batch :data:`SMALL_BATCH`, where the layer is bound by the weight reads; the tiled kernel wins
    at larger batches.
    Origin: the classic work-group reduction GEMV (clDNN's fully_connected_gpu_fb_io_ref family, CLBlast Xgemv).
    """

    name = "fully_connected_gpu_gemv"
    primitive = "fully_connected"
    tier = "gpu"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16, input bfyx unpadded, output bfyx."""
        plain = frozenset({Format.bfyx})
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS, input_formats=plain, output_formats=plain,
                            padded_inputs=False)

    VARIANTS: tuple[dict[str, int], ...] = VARIANTS

    def batch_block(self, params: Params) -> int:
        """NB, the batch items of one work-group: min(N, MAX_BATCH_BLOCK)."""
        return max(1, min(fc_dims(params)[0], MAX_BATCH_BLOCK))

    def variant_reason(self, params: Params, v: dict[str, int]) -> str | None:
        """Why the tuning variant ``v`` cannot run on this device (LWS not a power of two or below NB·ROWS,
        work-group or local memory too large), or None."""
        if v["lws"] & (v["lws"] - 1):
            return f"LWS {v['lws']} is not a power of two"
        nb = self.batch_block(params)
        if v["lws"] < nb * v["rows"]:
            return f"LWS {v['lws']} is below the {nb} x {v['rows']} (batch block x rows) sums it finishes"
        return caps_reason(params.caps, (v["lws"], 1), _local_bytes(v, nb))

    def default_variant(self, params: Params) -> dict[str, int]:
        """The first of VARIANTS that fits the device (for this kernel: LWS 128, 4 rows; 64 on smaller devices)."""
        for v in self.VARIANTS:
            if self.variant_reason(params, v) is None:
                return dict(v)
        return dict(self.VARIANTS[0])

    def validate(self, params: Params) -> str | None:
        """Plain operands (:func:`fc_plain_reason`); the default work-group and its local memory fit the device."""
        return fc_plain_reason(params) or self.variant_reason(params, self.default_variant(params))

    def priority(self, params: Params) -> int:
        """Batch up to SMALL_BATCH: ahead of fully_connected_gpu_tiled (FORCE_PRIORITY_3); larger: behind it."""
        return FORCE_PRIORITY_2 if fc_dims(params)[0] <= SMALL_BATCH else FORCE_PRIORITY_5

    def tune_variants(self, params: Params) -> list[dict[str, int]]:
        """``{"lws", "rows"}``: the default first, then the others that fit."""
        first = self.default_variant(params)
        return [first] + [dict(v) for v in self.VARIANTS if v != first and self.variant_reason(params, v) is None]

    def jit_constants(self, params: Params, variant: dict[str, int] | None = None) -> JitConstants:
        """Tensors, FC_N/FC_K/FC_M, BIAS_TERM/BIAS_INDEX, LWS, ROWS, NB."""
        v = variant or self.default_variant(params)
        j = super().jit_constants(params)
        j.update(fc_plain_jit(params))
        j.update({"LWS": v["lws"], "ROWS": v["rows"], "NB": self.batch_block(params)})
        return j

    def dispatch(self, params: Params, variant: dict[str, int] | None = None
                 ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (ceil(M / ROWS)·LWS, ceil(N / NB)), lws (LWS, 1)."""
        v = variant or self.default_variant(params)
        n, _, m = fc_dims(params)
        return (-(-m // v["rows"]) * v["lws"], -(-n // self.batch_block(params))), (v["lws"], 1)

    def kernel_data(self, params: Params, variant: dict[str, int] | None = None) -> KernelData:
        """One enqueue with the ``variant`` (default: :meth:`default_variant`) and the fused ops. Raises ValueError
        for a variant that does not fit the device (:meth:`variant_reason`)."""
        v = variant or self.default_variant(params)
        bad = self.variant_reason(params, v)
        if bad:
            raise ValueError(f"{self.name}: variant {v}: {bad}")
        jit = self.jit_constants(params, v)
        jit.update(fused_ops_jit(params.fused_ops))
        args = self.args(params) + [Arg("input", i) for op in params.fused_ops for i in op.dep_indices]
        entry, src = self.make_source(jit)
        gws, lws = self.dispatch(params, v)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, args)])
