"""gemm_tiled: register-tiled matrix product for CPU OpenCL (PoCL), ONNX MatMul / Gemm with a runtime B.

The blocked-direct-convolution recipe (docs/performance.md) applied to a plain GEMM: a TILE_M x 16 block of
C in 2 * TILE_M float8 accumulators; per k B's row segment as two aligned float8 and one broadcast scalar of A per
row (pointer loads and ``a*b+c``, no builtins, local size 1). B is read in place (no packing pass), so it must be
plain row-major with N % 8 == 0 for the aligned loads; its 16-column panel is strided by N (at N = 1024 one page
per row, badly cached), so the kernel blocks K GotoBLAS-style: per K block a work-item packs its sub-panel of B
into a private array and walks many row blocks over it, with the partial sums in the output buffer between K
blocks. Each operand and the output f32 or f16 storage, through call-free loads and stores
(:mod:`kernel_selector.common.inline_half`); an f16 output takes one K block (the partial sums would round to half
between blocks). Anything else (transposed B, padded or blocked operands, other data types, an f16 output with
K > 640) goes to ``gemm_ref``; a constant-B ONNX Gemm is a ``fully_connected`` already
(``frontend/onnx_ops/nn_gemm.py``), run by ``fully_connected_gemm`` at batch > 8.
"""

from __future__ import annotations

from cldnn_py.layout import DataType, Format, Layout
from cldnn_py.ops import GemmAttrs, gemm_shapes
from cldnn_py.ops.elementwise import float_literal

from ...common.block import choose_block
from ...common.gemm_index import gemm_index_jit, prod
from ...common.inline_half import inline_half_jit
from ...common.nd_index import nd_check, nd_jit
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, ClKernelData, KernelBase, KernelData
from ...params import FLOATS, Params, SupportedKey
from ...selector import register

TILE_M = 6  # max rows per work-item: 2 * TILE_M accumulators + 2 B vectors + 1 broadcast <= 16 ymm (AVX2)
K_BLOCK = 512  # rows of B's 16-column sub-panel a work-item packs (32 KiB private) and reuses over its row blocks
MIN_WORK_ITEMS = 16  # row groups are split until the gws has this many work-items (2 threads, load balance)
TUNE_TILES = (4, 5, 6)  # the row tiles auto-tuning times


def _plain(x: Layout) -> bool:
    return x.format == Format.bfyx and x.padding.is_zero and x.dtype in FLOATS


def gemm_dims(params: Params) -> tuple[tuple[int, ...], int, int, int]:
    """(batch shape, M, K, N) of a gemm's params (numpy matmul rules, :func:`gemm_shapes`)."""
    batch, m, k, n, _ = gemm_shapes(params.inputs[0].shape, params.inputs[1].shape,
                                    params.attrs_as(GemmAttrs).transpose_a, params.attrs_as(GemmAttrs).transpose_b)
    return batch, m, k, n


@register
class GemmKernelTiled(KernelBase):
    """Tiled gemm: y[.., m, n] = alpha · Σ_k op(A)[.., m, k] · B[.., k, n] + beta · C[broadcast].

    Inputs: INPUT0 A (.., M, K), or (.., K, M) with transpose_a, rank 1-6; INPUT1 B (.., K, N), rank >= 2, not
    transposed; INPUT2 C (optional, any shape broadcasting to the output, read element by element). A, B, C and
    the output: plain unpadded bfyx, each f32 or f16 (an f16 output: K <= 640, one K block). N % 8 == 0 (aligned
    float8 rows of B). Batch dimensions
    broadcast as in numpy matmul. Register tile: TILE_M rows (3-6 chosen per M, :meth:`tile`) x 16 columns; rows
    past M are clamped to M - 1, the 8-column tail of N % 16 == 8 runs on one float8. Work-item: one 16-column
    panel x ROW_GROUP row blocks, K in blocks of K_BLOCK (:meth:`blocking`). gws (ceil(M / (TILE_M * ROW_GROUP)),
    ceil(N / 16), batch), lws (1, 1, 1). 1024^3: about numpy's sgemm (``benchmarks/gemm_kernels.py``).
    """

    name = "gemm_tiled"
    primitive = "gemm"
    tier = "cpu"  # work-groups of one work-item, registers as the tile: shaped for CPU devices
    n_data_inputs = None

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16, every operand and the output plain bfyx, no padding."""
        plain = frozenset({Format.bfyx})
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS, input_formats=plain, output_formats=plain,
                            padded_inputs=False, padded_output=False)

    def validate(self, params: Params) -> str | None:
        """B not transposed, rank >= 2, N % 8 == 0; all operands plain unpadded f32 or f16; ranks <= 6; an f16
        output only with one K block (K <= 1.25 * K_BLOCK: the partial sums between K blocks live in the output)."""
        if len(params.inputs) not in (2, 3):
            return f"expected 2 or 3 inputs, got {len(params.inputs)}"
        for i, x in enumerate([*params.inputs, params.output]):
            if not _plain(x):
                what = "output" if i == len(params.inputs) else f"input {i}"
                return f"{what} must be plain unpadded f32 or f16 bfyx, got {x}"
        bad = nd_check(params.inputs, params.output)
        if bad:
            return bad
        if params.attrs_as(GemmAttrs).transpose_b:
            return "transposed B is not supported (the B row must be contiguous)"
        if params.inputs[1].rank < 2:
            return "B of rank 1 (a column) is a GEMV"
        try:
            _, _, _, n = gemm_dims(params)
        except ValueError as e:
            return str(e)
        if n % 8:
            return f"N = {n} is not a multiple of 8 (float8 rows of B would be misaligned)"
        return self.half_blocks_reason(params)

    def half_blocks_reason(self, params: Params, variant: dict[str, int] | None = None) -> str | None:
        """Why an f16 output cannot take the K blocking of ``variant`` (default: :meth:`blocking`'s): more than
        one K block would keep the partial sums in the output, rounded to half between blocks; or None."""
        if params.output.dtype != DataType.f16:
            return None
        _, _, k, _ = gemm_dims(params)
        kb = self.blocking(params, variant)[1]
        if kb < k:
            return (f"f16 output with K = {k} in K blocks of {kb}: the partial sums between blocks would be rounded "
                    f"to half (one block takes K <= {K_BLOCK * 5 // 4})")
        return None

    def priority(self, params: Params) -> int:
        """Well below the reference: it wins whenever it validates."""
        return FORCE_PRIORITY_3

    def tile(self, params: Params, tile_m: int | None = None) -> int:
        """TILE_M: ``tile_m`` (clamped to M) or :func:`choose_block` of M (3-6 rows, the one that wastes least on
        the clamped last block)."""
        _, m, _, _ = gemm_dims(params)
        return min(tile_m, m) if tile_m else choose_block(m, TILE_M)

    def blocking(self, params: Params, variant: dict[str, int] | None = None) -> tuple[int, int, int]:
        """(TILE_M, K_BLOCK, ROW_GROUP) for ``params``; a ``variant`` may set ``tile``, ``k_block``, ``row_group``.

        K_BLOCK: K when K <= 1.25 * K_BLOCK (one pass, no partial sums), else K_BLOCK. ROW_GROUP: all the row
        blocks of a column panel in one work-item (the sub-panel of B is then read from memory once), split into
        as many groups as it takes for MIN_WORK_ITEMS work-items.
        """
        v = variant or {}
        batch, m, k, n = gemm_dims(params)
        tm = self.tile(params, v.get("tile"))
        kb = v.get("k_block") or (k if k <= K_BLOCK * 5 // 4 else K_BLOCK)
        blocks = -(-m // tm)
        groups = min(blocks, max(1, -(-MIN_WORK_ITEMS // (-(-n // 16) * prod(batch)))))
        rg = v.get("row_group") or -(-blocks // groups)
        return tm, min(kb, k), rg

    def jit_constants(self, params: Params, variant: dict[str, int] | None = None) -> JitConstants:
        """Tensors, gemm index macros (gemm_ref's), A's pitches, TILE_M, K_BLOCK, ROW_GROUP, ALPHA, BETA, HAS_C and
        the call-free loads and stores of A, B, C and the output (:func:`inline_half_jit`)."""
        j = super().jit_constants(params)
        j.update(inline_half_jit({f"INPUT{i}": x for i, x in enumerate(params.inputs)} | {"OUTPUT": params.output}))
        for i, x in enumerate(params.inputs):
            j.update(nd_jit(f"INPUT{i}", x))
        j.update(nd_jit("OUTPUT", params.output))
        j.update(gemm_index_jit(params))
        _, m, k, _ = gemm_dims(params)
        ta = bool(params.attrs_as(GemmAttrs).transpose_a) and params.inputs[0].rank > 1
        tm, kb, rg = self.blocking(params, variant)
        a = params.attrs_as(GemmAttrs)
        j.update({"A_M_PITCH": 1 if ta else k, "A_K_PITCH": m if ta else 1, "TILE_M": tm, "K_BLOCK": kb,
                  "ROW_GROUP": rg, "ALPHA": float_literal(a.alpha),
                  "BETA": float_literal(a.beta), "HAS_C": len(params.inputs) > 2})
        return j

    def dispatch(self, params: Params, variant: dict[str, int] | None = None
                 ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (row groups, ceil(N / 16) column panels, batch), lws (1, 1, 1)."""
        batch, m, _, n = gemm_dims(params)
        tm, _, rg = self.blocking(params, variant)
        return (-(-m // (tm * rg)), -(-n // 16), prod(batch)), (1, 1, 1)

    def tune_variants(self, params: Params) -> list[dict[str, int]]:
        """``{"tile": TILE_M}`` for the default choice (:meth:`tile`) first, then each of TUNE_TILES up to M."""
        _, m, _, _ = gemm_dims(params)
        first = self.tile(params)
        return [{"tile": first}] + [{"tile": t} for t in TUNE_TILES if t != first and t <= m]

    def kernel_data(self, params: Params, variant: dict[str, int] | None = None) -> KernelData:
        """One enqueue; ``variant`` (``tile``, ``k_block``, ``row_group``) overrides the blocking (auto-tuning,
        tests and ``benchmarks/gemm_kernels.py`` time several). Raises ValueError for a K blocking an f16 output
        cannot take (:meth:`half_blocks_reason`)."""
        bad = self.half_blocks_reason(params, variant)
        if bad:
            raise ValueError(f"{self.name}: variant {variant}: {bad}")
        entry, src = self.make_source(self.jit_constants(params, variant))
        gws, lws = self.dispatch(params, variant)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, self.args(params))])
