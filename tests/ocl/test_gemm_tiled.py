"""gemm_tiled (register-tiled gemm) vs float64 numpy: M not a multiple of the row tile and smaller than it, N with a
16-column tail (N % 16 == 8) and N == 8, odd K, batched and broadcast batches, transposed A, 1-D A, alpha/beta
with C broadcast as a row, a column and in full, K blocks (partial sums through the output), the blocking
variants; transposed B and N % 8 != 0 fall back to gemm_ref."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from cldnn_py.primitives.gemm import Gemm
from tests.helpers import assert_close, cpu_tier, f32, typed_attrs
from tests.ocl.padded import run_bound_kernel
from tests.references import gemm_ref


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: these tests are about an OpenCL kernel."""
    return ocl_engine


FAST = "gemm_tiled"


def run_gemm(engine, a, b, c=None, ta=False, tb=False, alpha=1.0, beta=1.0):
    """Build A, B [, C] inputs -> gemm 'y' (CPU tier: gemm_tiled is one of its kernels); returns (output, selected
    kernel name)."""
    topo = cl.Topology()
    feeds = {"a": a, "b": b} | ({"c": c} if c is not None else {})
    for name, arr in feeds.items():
        topo.add(cl.InputLayout(name, cl.Layout(cl.DataType.f32, cl.Format.bfyx, arr.shape)))
    topo.add(Gemm("y", inputs=list(feeds), transpose_a=ta, transpose_b=tb, alpha=alpha, beta=beta))
    net = cl.Network(cl.Program(engine, topo, cpu_tier()))
    net.poison()
    return net.run(feeds)["y"], net.program.node("y").impl.kernel_name


CASES = [
    # A shape, B shape, C shape or None, transpose_a, alpha, beta
    ((5, 24), (24, 32), None, False, 1.0, 1.0),               # M % 4 == 1: last row block shifted
    ((2, 7, 33), (2, 33, 40), (1, 40), False, 0.5, 2.0),      # batch 2, odd K, N % 16 == 8, C a row
    ((3, 1, 6, 17), (1, 2, 17, 16), None, False, 1.0, 1.0),   # batch broadcast both ways
    ((19, 9), (19, 24), (9, 1), True, 1.0, -0.5),             # transposed A, N % 16 == 8, C a column
    ((3, 11), (11, 8), (3, 8), False, 0.25, 0.75),            # M < tile, N == 8 (one float8 column), full C
    ((24,), (2, 24, 48), None, False, 1.0, 1.0),              # 1-D A (M = 1)
    ((2, 13, 64), (64, 56), (2, 13, 56), False, 1.5, 1.0),    # B without batch, full batched C
    # N % 8 != 0 (B_UNALIGNED): B packed and the output stored element by element
    ((1, 3, 21, 16), (1, 3, 16, 21), None, False, 0.125, 1.0),  # attention's q·kᵀ: N = tokens, one partial panel
    ((2, 7, 33), (2, 33, 13), (1, 13), False, 0.5, 2.0),      # N < 8, C a row
    ((19, 9), (19, 37), (9, 1), True, 1.0, -0.5),             # transposed A, two full panels + 5 columns, C column
    ((5, 20), (20, 3), (5, 3), False, 1.0, 1.0),              # N = 3, full C
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}x{c[1]}-c{c[2]}-ta{int(c[3])}")
def test_gemm_tiled_matches_reference(engine, rng, case):
    sa, sb, sc, ta, alpha, beta = case
    a, b = f32(rng.standard_normal(sa)), f32(rng.standard_normal(sb))
    c = f32(rng.standard_normal(sc)) if sc is not None else None
    out, kernel = run_gemm(engine, a, b, c, ta, False, alpha, beta)
    assert kernel == FAST
    assert_close(out, gemm_ref(a, b, c, ta, False, alpha, beta), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("sa, sb, tb", [((6, 16), (24, 16), True), ((6, 700), (700, 20), False)],
                         ids=["transposed-B", "N20-K700"])
def test_gemm_tiled_falls_back_to_ref(engine, rng, sa, sb, tb):
    """Transposed B, or N % 8 != 0 with K beyond one K block: gemm_ref runs, still correct."""
    a, b = f32(rng.standard_normal(sa)), f32(rng.standard_normal(sb))
    out, kernel = run_gemm(engine, a, b, tb=tb)
    assert kernel == "gemm_ref"
    assert_close(out, gemm_ref(a, b, None, False, tb), rtol=1e-4, atol=1e-4)


def test_gemm_tiled_k_blocks(engine, rng):
    """K = 700 > 1.25 * K_BLOCK: three K blocks (the last one short), partial sums through the output; with C."""
    a, b = f32(rng.standard_normal((70, 700))), f32(rng.standard_normal((700, 40)))
    c = f32(rng.standard_normal((1, 40)))
    out, kernel = run_gemm(engine, a, b, c, alpha=0.5, beta=2.0)
    assert kernel == FAST
    assert_close(out, gemm_ref(a, b, c, alpha=0.5, beta=2.0), rtol=1e-4, atol=1e-4)


VARIANTS = [{"tile": t, "k_block": kb, "row_group": rg} for t in (1, 3, 6) for kb, rg in ((0, 0), (7, 1), (16, 3))]


def test_gemm_tiled_variants_agree(engine, rng):
    """The kernel's blocking variants (row tiles 1-6, K blocks of 7 and 16 with 1 or 3 row blocks per work-item,
    the defaults) on a batched, transposed-A product with N % 16 == 8 and a column C: all correct."""

    from kernel_selector import Params
    from kernel_selector.kernels.gemm.gemm_kernel_tiled import GemmKernelTiled

    a, b = f32(rng.standard_normal((2, 40, 23))), f32(rng.standard_normal((2, 40, 24)))
    c = f32(rng.standard_normal((23, 1)))
    lay = [cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape) for x in (a, b, c)]
    out_l = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 23, 24))
    attrs = {"transpose_a": True, "alpha": 1.5, "beta": -0.5}
    params = Params("gemm", "ocl", lay, out_l, typed_attrs("gemm", attrs), layer_id="y", device=engine.info)
    expect = gemm_ref(a, b, c, True, False, 1.5, -0.5)
    k = GemmKernelTiled()
    for variant in VARIANTS:
        (kc,) = k.kernel_data(params, {key: v for key, v in variant.items() if v}).kernels
        raw = run_bound_kernel(engine, kc, lay, [a, b, c], out_l)
        assert_close(out_l.from_physical(raw), expect, rtol=1e-4, atol=1e-4)


def run_panels(engine, a, bt, c=None, alpha=1.0, beta=1.0, variant=None):
    """A (input) times the constant B given transposed (.., N, K) and stored as 16-column panels (a Reorder of a
    Data to b_fs_yx_fsv16, folded at build: winograd_convolutions' form); returns (output, kernel name)."""
    topo = cl.Topology()
    topo.add(cl.InputLayout("a", cl.Layout(cl.DataType.f32, cl.Format.bfyx, a.shape)))
    topo.add(cl.Data("bt", bt), cl.Reorder("b", "bt", cl.Format.b_fs_yx_fsv16))
    ins = ["a", "b"]
    if c is not None:
        topo.add(cl.Data("c", c))
        ins.append("c")
    topo.add(Gemm("y", inputs=ins, transpose_b=True, alpha=alpha, beta=beta))
    net = cl.Network(cl.Program(engine, topo, cpu_tier()))
    assert net.program.node("b").layout().format == cl.Format.b_fs_yx_fsv16
    net.poison()
    return net.run({"a": a})["y"], net.program.node("y").impl.kernel_name


PANEL_CASES = [
    # A shape, B^T shape (batch, N, K), C shape or None, alpha, beta
    ((36, 16, 64), (36, 48, 64), None, 1.0, 1.0),    # the Winograd form: 3 panels, PANELS 2 (a short last group)
    ((3, 7, 37), (3, 32, 37), (1, 32), 0.5, -1.5),   # M below the tile, odd K, C a row
]


@pytest.mark.parametrize("case", PANEL_CASES, ids=lambda c: f"{c[0]}x{c[1]}-c{c[2]}")
def test_gemm_tiled_reads_b_panels(engine, rng, case):
    sa, sbt, sc, alpha, beta = case
    a, bt = f32(rng.standard_normal(sa)), f32(rng.standard_normal(sbt))
    c = f32(rng.standard_normal(sc)) if sc is not None else None
    out, kernel = run_panels(engine, a, bt, c, alpha, beta)
    assert kernel == FAST
    assert_close(out, gemm_ref(a, bt.transpose(0, 2, 1), c, False, False, alpha, beta), rtol=1e-4, atol=1e-4)


def test_gemm_tiled_panels_need_the_output_batch(engine, rng):
    """A panel-form B must carry the output's batch (a broadcast one, batch 1 under A's 3, is refused with the
    reason) and be transposed."""
    from kernel_selector import Params
    from kernel_selector.kernels.gemm.gemm_kernel_tiled import GemmKernelTiled

    lay = [cl.Layout(cl.DataType.f32, cl.Format.bfyx, (3, 5, 16)),
           cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, (1, 32, 16))]
    out_l = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (3, 5, 32))
    params = Params("gemm", "ocl", lay, out_l, typed_attrs("gemm", {"transpose_b": True}), layer_id="y",
                    device=engine.info)
    reason = GemmKernelTiled().validate(params)
    assert reason is not None and "batch" in reason
    no_t = Params("gemm", "ocl", [lay[0], cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, (3, 16, 32))], out_l,
                  typed_attrs("gemm", {}), layer_id="y", device=engine.info)
    assert "transposed" in GemmKernelTiled().validate(no_t)


def test_gemm_tiled_panel_variants_agree(engine, rng):
    """Panels per work-item 1-3 (3 panels: full, short and empty last groups) x row tiles 1, 4, 6: all correct."""
    from kernel_selector import Params
    from kernel_selector.kernels.gemm.gemm_kernel_tiled import GemmKernelTiled

    a, bt = f32(rng.standard_normal((4, 11, 29))), f32(rng.standard_normal((4, 48, 29)))
    lay = [cl.Layout(cl.DataType.f32, cl.Format.bfyx, a.shape),
           cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, bt.shape)]
    out_l = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (4, 11, 48))
    params = Params("gemm", "ocl", lay, out_l, typed_attrs("gemm", {"transpose_b": True}), layer_id="y",
                    device=engine.info)
    k = GemmKernelTiled()
    assert k.validate(params) is None
    expect = gemm_ref(a, bt.transpose(0, 2, 1))
    for variant in ({"panels": p, "tile": t} for p in (1, 2, 3) for t in (1, 4, 6)):
        (kc,) = k.kernel_data(params, variant).kernels
        assert "#define B_PANELS 1" in kc.source
        raw = run_bound_kernel(engine, kc, lay, [a, bt], out_l)
        assert_close(out_l.from_physical(raw), expect, rtol=1e-4, atol=1e-4)
