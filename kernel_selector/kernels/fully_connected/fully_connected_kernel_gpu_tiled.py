"""fully_connected_gpu_tiled: GPU-tier work-group tiled inner product (CLBlast Xgemm style,
:mod:`kernel_selector.common.gpu_tile`), any batch."""

from __future__ import annotations

from cldnn_py.layout import Format

from ...common.fc_plain import fc_dims, fc_plain_jit, fc_plain_reason
from ...common.gpu_tile import default_tile, tile_dispatch, tile_fits, tile_jit, tile_local_bytes, tile_variants
from ...jitter import JitConstants, fused_ops_jit
from ...kernel_base import FORCE_PRIORITY_3, Arg, ClKernelData, KernelBase, KernelData
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


@register
class FullyConnectedKernelGpuTiled(KernelBase):
    """Tiled fully connected for GPUs: y[n, m] = Σ_k x[n, k] · W[m, k] + bias[m], then the fused ops.

    Inputs: INPUT0 data (N, ...) of rank 2-4, bfyx unpadded, flattened to (N, K) in its buffer (= logical) order;
    INPUT1 weights (M, K) bfyx unpadded; INPUT2 bias with M elements of any shape (``BIAS_INDEX``). Output (N, M)
    bfyx (padding allowed, written through ``OUTPUT_GET_INDEX``). Each tensor f32 or f16 (half storage through the
    LOAD / STORE macros; the ``__local`` tiles and the sums float). The gemm_gpu_tiled scheme with x as
    A and Wᵀ as B: a work-group of TX x TY work-items (default 16 x 16, 8 x 8 when local memory < 32 KiB) owns
    TY·WPT batch rows x TX·WPT output channels, WPT = 4; ``__local`` tiles KWG x (MWG + NWG) floats (8 KiB for
    16 x 16 x 4, KWG 16), both loaded k-contiguous (coalesced); bias and ``FUSED_OPS`` per element in the epilogue.
    gws (ceil(M / NWG)·TX, ceil(N / MWG)·TY), lws (TX, TY). Origin: CLBlast's Xgemm (C. Nugteren), rewritten.
    """

    name = "fully_connected_gpu_tiled"
    primitive = "fully_connected"
    tier = "gpu"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16, input bfyx unpadded, output bfyx."""
        plain = frozenset({Format.bfyx})
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS, input_formats=plain, output_formats=plain,
                            padded_inputs=False)

    def validate(self, params: Params) -> str | None:
        """Plain operands (:func:`fc_plain_reason`); the default tile fits the device."""
        return fc_plain_reason(params) or tile_fits(params.caps, default_tile(params.caps))

    def priority(self, params: Params) -> int:
        """Ahead of fully_connected_ref wherever it validates (fully_connected_gpu_gemv beats it at batch 1)."""
        return FORCE_PRIORITY_3

    def tune_variants(self, params: Params) -> list[dict[str, int]]:
        """Tiles ``{"tx", "ty", "wpt", "kwg"}``: the caps' default first, then the others that fit."""
        return tile_variants(params.caps)

    def jit_constants(self, params: Params, variant: dict[str, int] | None = None) -> JitConstants:
        """Tensors, FC_N/FC_K/FC_M, BIAS_TERM/BIAS_INDEX, TX/TY/WPT/KWG/MWG/NWG."""
        j = super().jit_constants(params)
        j.update(fc_plain_jit(params))
        j.update(tile_jit(variant or default_tile(params.caps)))
        return j

    def dispatch(self, params: Params, variant: dict[str, int] | None = None
                 ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (ceil(M / NWG)·TX, ceil(N / MWG)·TY), lws (TX, TY)."""
        n, _, m = fc_dims(params)
        gws, lws = tile_dispatch(variant or default_tile(params.caps), n, m, 1)
        return gws[:2], lws[:2]

    def kernel_data(self, params: Params, variant: dict[str, int] | None = None) -> KernelData:
        """One enqueue with the ``variant`` tile (default: :func:`default_tile` of the caps) and the fused ops."""
        v = variant or default_tile(params.caps)
        bad = tile_fits(params.caps, v)
        if bad:
            raise ValueError(f"{self.name}: tile {v}: {bad} ({tile_local_bytes(v)} bytes)")
        jit = self.jit_constants(params, v)
        jit.update(fused_ops_jit(params.fused_ops))
        args = self.args(params) + [Arg("input", i) for op in params.fused_ops for i in op.dep_indices]
        entry, src = self.make_source(jit)
        gws, lws = self.dispatch(params, v)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, args)])
