"""fully_connected_gemm: compute-bound, register-tiled inner product for batches > 8 on CPU OpenCL (PoCL).

At batch > 8 a fully connected layer is a GEMM (batch x K) . (K x M) with enough reuse of each weight to be
compute-bound, where ``fully_connected_gemv`` (batches 1-8) is bandwidth-bound and re-reads the weights per batch
item. This kernel is the blocked-direct-convolution recipe of docs/performance.md (a 1x1 convolution is the
same product): weights pre-packed in ``os_iyx_osv16`` ([M/16][K][16], the layout optimizer reorder_inputs packs
them and propagate_constants folds the reorder), TILE_ROWS batch rows x 16 outputs per work-item, aligned float8
pointer loads and ``a*b+c``, local size 1; bias and fused ops (``FUSED_OPS8`` of the fsv16 convolution) in the
epilogue.
"""

from __future__ import annotations

from cldnn_py.layout import Format

from ...common.block import choose_block
from ...common.fc_plain import float_reason
from ...common.fused_ops import fused_ops8_jit, fused_ops8_reason
from ...common.inline_half import inline_half_jit
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, Arg, ClKernelData, KernelBase, KernelData
from ...params import FLOATS, Params, SupportedKey
from ...selector import register

TILE_ROWS = 6  # max batch rows per work-item: 2 * TILE_ROWS accumulators + 2 weight vectors + 1 broadcast <= 16 ymm
TUNE_TILES = (4, 5, 6)  # the row tiles auto-tuning times
MIN_BATCH = 9  # batches 1-8 belong to fully_connected_gemv (weights read once per row block, bandwidth-bound)
PLAIN = frozenset({Format.bfyx})


@register
class FullyConnectedKernelGemm(KernelBase):
    """GEMM fully connected: y[n, m] = Σ_k x[n, k] · W[m, k] + bias[m], then the fused ops, for N > 8.

    Inputs: INPUT0 data (N, ...) of any rank, bfyx without padding (K = product of the non-batch dims, the
    flattening is the buffer's own order); INPUT1 weights (M, K) ``os_iyx_osv16`` unpadded (the packed panel of
    output slice s is [K][16] at s * 16 * K); INPUT2 bias with M elements, any layout (``BIAS_INDEX``), when
    present. Output (N, M) bfyx unpadded. Each tensor f32 or f16 (half storage through the LOAD / STORE macros,
    call-free in the inner loop and the stores: :mod:`kernel_selector.common.inline_half`; sums in float). Fused
    ops: activations and eltwise with an operand of the output's shape (:func:`fused_ops8_jit`). N >= 9: smaller
    batches are rejected (``fully_connected_gemv`` runs them, and reorder_inputs then keeps their weights plain).
    Tile: 3-6 rows (:meth:`rows`) x 16 outputs; the last row block is shifted back onto its neighbour, the last
    slice stores only the outputs < M.
    gws (ceil(N / TILE_ROWS), ceil(M / 16)), lws (1, 1). validate() gives the reason for anything else.
    """

    name = "fully_connected_gemm"
    primitive = "fully_connected"
    tier = "cpu"  # work-groups of one work-item, registers as the tile: shaped for CPU devices
    supports_fused_ops = True  # through FUSED_OPS8 (fused_ops8_jit), not the jitter's scalar FUSED_OPS

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16, input and output bfyx without padding."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS, input_formats=PLAIN, output_formats=PLAIN,
                            padded_inputs=False, padded_output=False)

    def validate(self, params: Params) -> str | None:
        """N > 8; weights (M, K) os_iyx_osv16 unpadded matching the input's K; bias with M elements; weights and
        bias f32 or f16; fused activations with a formula, eltwise with an operand of the output's shape."""
        x, w = params.inputs[0], params.inputs[1]
        if x.shape[0] < MIN_BATCH:
            return f"batch {x.shape[0]} < {MIN_BATCH}: fully_connected_gemv's domain"
        if w.rank != 2:
            return f"weights rank {w.rank} is not 2"
        if w.format != Format.os_iyx_osv16 or not w.padding.is_zero:
            return (f"weights must be os_iyx_osv16 without padding, got {w.format.value}"
                    f"{'' if w.padding.is_zero else ' padded'}")
        k = x.count() // x.shape[0]
        if w.shape[1] != k:
            return f"weights have {w.shape[1]} columns, input has K = {k}"
        if len(params.inputs) > 2 and params.inputs[2].count() != w.shape[0]:
            return f"bias must have {w.shape[0]} elements, got {params.inputs[2]}"
        return float_reason(params.inputs[1:]) or fused_ops8_reason(params)

    def priority(self, params: Params) -> int:
        """Well below the reference: it wins whenever it validates."""
        return FORCE_PRIORITY_3

    def rows(self, params: Params, tile_rows: int | None = None) -> int:
        """Batch rows per work-item: ``tile_rows`` (at most N) or :func:`choose_block` of N (3-6 rows, the one
        that wastes least on the shifted last block)."""
        n = params.inputs[0].shape[0]
        return min(tile_rows, n) if tile_rows else choose_block(n, TILE_ROWS)

    def jit_constants(self, params: Params, tile_rows: int | None = None) -> JitConstants:
        """Tensors plus ``FCG_N/M/K``, ``TILE_ROWS``, ``BIAS_TERM``, ``BIAS_INDEX(m)`` and the call-free loads and
        stores ``INPUT0_ILOAD``, ``INPUT1_ALOAD8``, ``INPUT2_ILOAD``, ``OUTPUT_ASTORE8`` (:func:`inline_half_jit`)."""
        j = super().jit_constants(params)
        j.update(inline_half_jit({f"INPUT{i}": x for i, x in enumerate(params.inputs)} | {"OUTPUT": params.output}))
        m, k = params.inputs[1].shape
        has_bias = len(params.inputs) > 2
        j.update({"FCG_N": params.inputs[0].shape[0], "FCG_M": m, "FCG_K": k,
                  "TILE_ROWS": self.rows(params, tile_rows), "BIAS_TERM": int(has_bias)})
        if has_bias:  # logical flat index m -> (b, f, y, x) of the bias tensor, whatever its rank
            j.add("BIAS_INDEX(m)", "INPUT2_GET_INDEX((m) / (INPUT2_FEATURE_NUM * INPUT2_SIZE_Y * INPUT2_SIZE_X), "
                  "(m) / (INPUT2_SIZE_Y * INPUT2_SIZE_X) % INPUT2_FEATURE_NUM, "
                  "(m) / INPUT2_SIZE_X % INPUT2_SIZE_Y, (m) % INPUT2_SIZE_X)")
        return j

    def dispatch(self, params: Params, tile_rows: int | None = None) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (ceil(N / TILE_ROWS), ceil(M / 16)): the row blocks of one weight panel are neighbours and share it
        from cache; lws (1, 1)."""
        n, m = params.inputs[0].shape[0], params.inputs[1].shape[0]
        return (-(-n // self.rows(params, tile_rows)), -(-m // 16)), (1, 1)

    def tune_variants(self, params: Params) -> list[dict[str, int]]:
        """``{"tile": TILE_ROWS}`` for the default choice (:meth:`rows`) first, then each of TUNE_TILES."""
        first = self.rows(params)
        return [{"tile": first}] + [{"tile": t} for t in TUNE_TILES if t != first]

    def kernel_data(self, params: Params, variant: dict[str, int] | None = None) -> KernelData:
        """One enqueue (fused ops' extra inputs appended to the arguments); ``variant["tile"]`` overrides the row
        tile (auto-tuning and ``benchmarks/gemm_kernels.py`` time several)."""
        tile_rows = (variant or {}).get("tile")
        jit = self.jit_constants(params, tile_rows)
        jit.update(fused_ops8_jit(params.fused_ops, params.inputs[1].shape[0]))
        args = self.args(params) + [Arg("input", i) for op in params.fused_ops for i in op.dep_indices]
        entry, src = self.make_source(jit)
        gws, lws = self.dispatch(params, tile_rows)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, args)])
