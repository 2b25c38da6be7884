"""gemm_gpu_tiled: GPU-tier work-group tiled gemm (CLBlast Xgemm style, :mod:`kernel_selector.common.gpu_tile`)."""

from __future__ import annotations

from cldnn_py.layout import Format, Layout
from cldnn_py.ops import GemmAttrs, gemm_shapes
from cldnn_py.ops.elementwise import float_literal

from ...common.gemm_index import gemm_index_jit, prod
from ...common.gpu_tile import default_tile, tile_dispatch, tile_fits, tile_jit, tile_local_bytes, tile_variants
from ...common.nd_index import nd_check, nd_jit
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, ClKernelData, KernelBase, KernelData
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


def _plain(x: Layout) -> bool:
    return x.format == Format.bfyx and x.padding.is_zero and x.dtype in FLOATS


@register
class GemmKernelGpuTiled(KernelBase):
    """Tiled gemm for GPUs: y[.., m, n] = alpha · Σ_k op(A)[.., m, k] · op(B)[.., k, n] + beta · C[broadcast].

    Inputs: INPUT0 A, INPUT1 B, INPUT2 C (optional), numpy-matmul semantics as ``gemm_ref`` (ranks 1-6, batch
    dimensions broadcast, transpose_a / transpose_b, 1-D operands); all operands and the output plain unpadded
    bfyx, each f32 or f16 (half storage through the LOAD / STORE macros; the ``__local`` tiles and sums float).
    A work-group of TX x TY work-items (default 16 x 16, or 8 x 8 when local memory < 32 KiB) computes an
    MWG x NWG = TY·WPT x TX·WPT tile of C (WPT = 4: a 4 x 4 register block per work-item) with ``__local`` tiles
    of KWG (16) x MWG of A and KWG x NWG of B, 4·KWG·(MWG + NWG) bytes (8 KiB for 16 x 16 x 4), loaded
    cooperatively and coalesced per K step; edges of M, N, K zero-filled. gws (ceil(N / NWG)·TX, ceil(M / MWG)·TY,
    batch), lws (TX, TY, 1). Origin: CLBlast's Xgemm kernel (C. Nugteren), rewritten.
    """

    name = "gemm_gpu_tiled"
    primitive = "gemm"
    tier = "gpu"
    n_data_inputs = None

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16, every operand and the output plain bfyx, no padding."""
        plain = frozenset({Format.bfyx})
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS, input_formats=plain, output_formats=plain,
                            padded_inputs=False, padded_output=False)

    def validate(self, params: Params) -> str | None:
        """Two or three plain unpadded f32 / f16 bfyx operands of rank <= 6 whose inner dimensions match; the
        default tile fits the device (work-group size, half the local memory)."""
        if len(params.inputs) not in (2, 3):
            return f"expected 2 or 3 inputs, got {len(params.inputs)}"
        for i, x in enumerate([*params.inputs, params.output]):
            if not _plain(x):
                what = "output" if i == len(params.inputs) else f"input {i}"
                return f"{what} must be plain unpadded f32 or f16 bfyx, got {x}"
        bad = nd_check(params.inputs, params.output)
        if bad:
            return bad
        a = params.attrs_as(GemmAttrs)
        try:
            gemm_shapes(params.inputs[0].shape, params.inputs[1].shape, bool(a.transpose_a), bool(a.transpose_b))
        except ValueError as e:
            return str(e)
        return tile_fits(params.caps, default_tile(params.caps))

    def priority(self, params: Params) -> int:
        """Ahead of gemm_ref wherever it validates."""
        return FORCE_PRIORITY_3

    def tune_variants(self, params: Params) -> list[dict[str, int]]:
        """Tiles ``{"tx", "ty", "wpt", "kwg"}``: the caps' default first, then the others that fit."""
        return tile_variants(params.caps)

    def jit_constants(self, params: Params, variant: dict[str, int] | None = None) -> JitConstants:
        """Tensors, gemm index macros, TX/TY/WPT/KWG/MWG/NWG, TRANS_A/TRANS_B (load order), ALPHA, BETA, HAS_C."""
        j = super().jit_constants(params)
        for i, x in enumerate(params.inputs):
            j.update(nd_jit(f"INPUT{i}", x))
        j.update(nd_jit("OUTPUT", params.output))
        j.update(gemm_index_jit(params))
        a = params.attrs_as(GemmAttrs)
        j.update(tile_jit(variant or default_tile(params.caps)))
        j.update({"TRANS_A": int(bool(a.transpose_a) and params.inputs[0].rank > 1),
                  "TRANS_B": int(bool(a.transpose_b) and params.inputs[1].rank > 1),
                  "ALPHA": float_literal(a.alpha), "BETA": float_literal(a.beta),
                  "HAS_C": int(len(params.inputs) > 2)})
        return j

    def dispatch(self, params: Params, variant: dict[str, int] | None = None
                 ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (ceil(N / NWG)·TX, ceil(M / MWG)·TY, batch), lws (TX, TY, 1)."""
        a = params.attrs_as(GemmAttrs)
        batch, m, _, n, _ = gemm_shapes(params.inputs[0].shape, params.inputs[1].shape, bool(a.transpose_a),
                                        bool(a.transpose_b))
        return tile_dispatch(variant or default_tile(params.caps), m, n, prod(batch))

    def kernel_data(self, params: Params, variant: dict[str, int] | None = None) -> KernelData:
        """One enqueue with the ``variant`` tile (default: :func:`default_tile` of the caps)."""
        v = variant or default_tile(params.caps)
        bad = tile_fits(params.caps, v)
        if bad:
            raise ValueError(f"{self.name}: tile {v}: {bad} ({tile_local_bytes(v)} bytes)")
        entry, src = self.make_source(self.jit_constants(params, v))
        gws, lws = self.dispatch(params, v)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, self.args(params))])
