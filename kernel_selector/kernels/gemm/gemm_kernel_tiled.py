"""gemm_tiled: register-tiled matrix product for CPU OpenCL (PoCL), ONNX MatMul / Gemm with a runtime B.

The blocked-direct-convolution recipe (docs/performance.md) applied to a plain GEMM: a TILE_M x 16 block of
C in 2 * TILE_M float8 accumulators; per k B's row segment as two aligned float8 and one broadcast scalar of A per
row (pointer loads and ``a*b+c``, no builtins, local size 1). B is read in place (no packing pass), so it must be
plain row-major with N % 8 == 0 for the aligned loads (any other N, attention's q·kᵀ over 197 tokens say, in one K
block: B packed and the output stored element by element); its 16-column panel is strided by N (at N = 1024 one
page per row, badly cached), so the kernel blocks K GotoBLAS-style: per K block a work-item packs its sub-panel of B
into a private array and walks many row blocks over it, with the partial sums in the output buffer between K
blocks. Each operand and the output f32 or f16 storage, through call-free loads and stores
(:mod:`kernel_selector.common.inline_half`); an f16 output takes one K block (the partial sums would round to half
between blocks). A constant B may come as 16-column panels instead (``transpose_b`` with B (.., N, K) in
``b_fs_yx_fsv16``, physically [batch][N / 16][K][16], the layout ``fully_connected_gemm`` reads its
``os_iyx_osv16`` weights in): each panel row is then 64 contiguous bytes read in place, no private copy
(winograd_convolutions stores its filters so; against the plain-B kernel on ResNet-50's 14x14, 28x28 and 56x56
products, ``benchmarks/gemm_kernels.py --shapes wino14 wino28 wino56``: 1.3-1.7x). Anything else (a transposed
plain B, padded or blocked operands, other data types, an f16 output with K > 640) goes to ``gemm_ref``; a
constant-B ONNX Gemm is a ``fully_connected`` already (``frontend/onnx_ops/nn_gemm.py``), run by
``fully_connected_gemm`` at batch > 8.
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
PANELS = 2  # B_PANELS: 16-column panels per work-item (1.0-1.1x one on the Winograd products, fewer launches)


def _plain(x: Layout) -> bool:
    return x.format == Format.bfyx and x.padding.is_zero and x.dtype in FLOATS


def b_panels(params: Params) -> bool:
    """True when B comes as 16-column panels: (.., N, K) in b_fs_yx_fsv16 with ``transpose_b`` (:func:`panels_reason`
    says whether the kernel takes it)."""
    return params.inputs[1].format == Format.b_fs_yx_fsv16


def panels_reason(params: Params) -> str | None:
    """Why a panel-form B (:func:`b_panels`) cannot be read, or None: it must be transposed (.., N, K), rank 3,
    unpadded f32 or f16, N a multiple of 16, and its batch the output's batch (no broadcast)."""
    b = params.inputs[1]
    if not params.attrs_as(GemmAttrs).transpose_b or b.rank != 3:
        return f"a b_fs_yx_fsv16 B must be a transposed (batch, N, K) operand, got rank {b.rank}"
    if not b.padding.is_zero or b.dtype not in FLOATS:
        return f"a b_fs_yx_fsv16 B must be unpadded f32 or f16, got {b}"
    try:
        batch, _, _, n = gemm_dims(params)
    except ValueError as e:
        return str(e)
    if n % 16 or batch != (b.shape[0],):
        return f"a b_fs_yx_fsv16 B needs N % 16 == 0 and the output's batch; got N = {n}, batch {batch} vs {b.shape[0]}"
    return None


def _index_layouts(params: Params) -> list[Layout]:
    """The operands as the N-D index helpers see them: a panel-form B as a plain stand-in of its logical shape
    (the kernel addresses its panels itself; B_INDEX is unused then)."""
    ins = list(params.inputs)
    if b_panels(params):
        ins[1] = Layout(ins[1].dtype, Format.bfyx, ins[1].shape)
    return ins


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
        """OpenCL, f32 or f16, every operand and the output plain bfyx (B also as panels: b_fs_yx_fsv16), no
        padding."""
        plain = frozenset({Format.bfyx})
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS, input_formats=plain | {Format.b_fs_yx_fsv16},
                            output_formats=plain, padded_inputs=False, padded_output=False)

    def validate(self, params: Params) -> str | None:
        """B not transposed, rank >= 2, N % 8 == 0 or K <= 1.25 * K_BLOCK (one K block: the unaligned form), or B as
        panels (:func:`panels_reason`); all other operands
        plain unpadded f32 or f16; ranks <= 6; an f16 output only with one K block (K <= 1.25 * K_BLOCK: the partial
        sums between K blocks live in the output)."""
        if len(params.inputs) not in (2, 3):
            return f"expected 2 or 3 inputs, got {len(params.inputs)}"
        for i, x in enumerate([*params.inputs, params.output]):
            if not _plain(x) and not (i == 1 and b_panels(params)):
                what = "output" if i == len(params.inputs) else f"input {i}"
                return f"{what} must be plain unpadded f32 or f16 bfyx, got {x}"
        bad = nd_check(_index_layouts(params), params.output)
        if bad:
            return bad
        if b_panels(params):
            return panels_reason(params)
        if params.attrs_as(GemmAttrs).transpose_b:
            return "transposed B is not supported (the B row must be contiguous)"
        if params.inputs[1].rank < 2:
            return "B of rank 1 (a column) is a GEMV"
        try:
            _, _, _, n = gemm_dims(params)
        except ValueError as e:
            return str(e)
        if n % 8 and gemm_dims(params)[2] > K_BLOCK * 5 // 4:
            return (f"N = {n} is not a multiple of 8 and K = {gemm_dims(params)[2]} > {K_BLOCK * 5 // 4}: the "
                    f"unaligned form packs B element by element in one K block")
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

        K_BLOCK: K when K <= 1.25 * K_BLOCK (one pass, no partial sums) or B comes as panels (read in place),
        else K_BLOCK. ROW_GROUP: all the row blocks of a column panel in one work-item (the sub-panel of B is then
        read from memory once), split into as many groups as it takes for MIN_WORK_ITEMS work-items.
        """
        v = variant or {}
        batch, m, k, n = gemm_dims(params)
        tm = self.tile(params, v.get("tile"))
        kb = k if b_panels(params) or n % 8 else v.get("k_block") or (k if k <= K_BLOCK * 5 // 4 else K_BLOCK)
        blocks = -(-m // tm)
        groups = min(blocks, max(1, -(-MIN_WORK_ITEMS // (self.panel_items(params, variant) * prod(batch)))))
        rg = v.get("row_group") or -(-blocks // groups)
        return tm, min(kb, k), rg

    def panels(self, params: Params, variant: dict[str, int] | None = None) -> int:
        """PANELS, the 16-column panels per work-item: ``variant["panels"]`` or PANELS with a panel-form B, else 1."""
        return (variant or {}).get("panels", PANELS) if b_panels(params) else 1

    def panel_items(self, params: Params, variant: dict[str, int] | None = None) -> int:
        """Work-items along N: ceil(ceil(N / 16) / PANELS)."""
        panels = -(-gemm_dims(params)[3] // 16)
        return -(-panels // self.panels(params, variant))

    def jit_constants(self, params: Params, variant: dict[str, int] | None = None) -> JitConstants:
        """Tensors, gemm index macros (gemm_ref's), A's pitches, TILE_M, K_BLOCK, ROW_GROUP, B_PANELS, PANELS,
        ALPHA, BETA, HAS_C and the call-free loads and stores of A, B, C and the output (:func:`inline_half_jit`)."""
        j = super().jit_constants(params)
        j.update(inline_half_jit({f"INPUT{i}": x for i, x in enumerate(params.inputs)} | {"OUTPUT": params.output}))
        for i, x in enumerate(_index_layouts(params)):
            j.update(nd_jit(f"INPUT{i}", x))
        j.update(nd_jit("OUTPUT", params.output))
        j.update(gemm_index_jit(params))
        _, m, k, _ = gemm_dims(params)
        ta = bool(params.attrs_as(GemmAttrs).transpose_a) and params.inputs[0].rank > 1
        tm, kb, rg = self.blocking(params, variant)
        a = params.attrs_as(GemmAttrs)
        j.update({"A_M_PITCH": 1 if ta else k, "A_K_PITCH": m if ta else 1, "TILE_M": tm, "K_BLOCK": kb,
                  "B_UNALIGNED": int(gemm_dims(params)[3] % 8 != 0),
                  "ROW_GROUP": rg, "B_PANELS": int(b_panels(params)), "PANELS": self.panels(params, variant),
                  "ALPHA": float_literal(a.alpha),
                  "BETA": float_literal(a.beta), "HAS_C": len(params.inputs) > 2})
        return j

    def dispatch(self, params: Params, variant: dict[str, int] | None = None
                 ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (row groups, ceil(N / 16 / PANELS) column panel groups, batch), lws (1, 1, 1)."""
        batch, m, _, _ = gemm_dims(params)
        tm, _, rg = self.blocking(params, variant)
        return (-(-m // (tm * rg)), self.panel_items(params, variant), prod(batch)), (1, 1, 1)

    def tune_variants(self, params: Params) -> list[dict[str, int]]:
        """``{"tile": TILE_M}`` for the default choice (:meth:`tile`) first, then each of TUNE_TILES up to M; with a
        panel-form B each of them with PANELS (the default first), 1 and 4 panels per work-item."""
        _, m, _, _ = gemm_dims(params)
        first = self.tile(params)
        tiles = [first] + [t for t in TUNE_TILES if t != first and t <= m]
        if not b_panels(params):
            return [{"tile": t} for t in tiles]
        return [{"tile": t, "panels": p} for p in dict.fromkeys((PANELS, 1, 4)) for t in tiles]

    def kernel_data(self, params: Params, variant: dict[str, int] | None = None) -> KernelData:
        """One enqueue; ``variant`` (``tile``, ``k_block``, ``row_group``, ``panels``) overrides the blocking
        (auto-tuning, tests and ``benchmarks/gemm_kernels.py`` time several). Raises ValueError for a K blocking an
        f16 output cannot take (:meth:`half_blocks_reason`)."""
        bad = self.half_blocks_reason(params, variant)
        if bad:
            raise ValueError(f"{self.name}: variant {variant}: {bad}")
        entry, src = self.make_source(self.jit_constants(params, variant))
        gws, lws = self.dispatch(params, variant)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, self.args(params))])
