"""convolution_cpu_packed's two forms of a dense 1×1 stride-1 convolution: channel-vector tiles (cpu_conv_oc, small
layers) and the pixel-vector GEMM, each forced through OC_MAX_MACS and OC_MAX_INPUT_BYTES, vs an independent float64
convolution on NaN-poisoned buffers (conv_harness.py: the output's padding must stay NaN)."""

from __future__ import annotations

import numpy as np
import pytest

from cldnn_py.layout import Format, Padding
from tests.cpu.conv_harness import assert_loop_fmas_in_registers, run_direct
from tests.helpers import assert_close, f32
from tests.references import conv_ref

KERNEL = "convolution_cpu_packed"
OSV16 = Format.os_iyx_osv16
FORMS = pytest.mark.parametrize("macs", [1 << 62, 0], ids=["channel-vectors", "pixel-vectors"])  # both limits


@pytest.fixture(autouse=True, params=[0, 1], ids=["main-tile", "second-tile"])
def channel_vector_tile(request, monkeypatch):
    """Every test with both channel-vector tiles: the main one and the second one (cpu_conv_oc.ALT_TILE 0 / 1;
    cpu_microkernel_oc.ALT_PIXELS × ALT_CHANNELS: 14 × 32 on a full-rate AVX-512 host, 8 × 16 on a half-rate one)."""
    from kernel_selector.kernels.convolution import cpu_conv_oc

    monkeypatch.setattr(cpu_conv_oc, "ALT_TILE", request.param)

CASES = {  # name: (x shape, oc, groups)
    "tails": ((1, 21, 5, 7), 37, 1),  # 35 pixels (8 tiles of 4, the last of 3), 3 panels, the last of 5 channels
    "batch": ((3, 40, 6, 6), 24, 1),  # 3 images in one region; 24 channels: 2 panels, the second half empty
    "one-panel": ((2, 30, 4, 5), 10, 1),  # 10 channels: one panel, 6 rows of it never stored
    "wide": ((1, 16, 23, 24), 64, 1),  # 552 pixels: ranges of tiles per task
}


@FORMS
@pytest.mark.parametrize("name", list(CASES))
def test_forms_match_reference_with_relu(rng, monkeypatch, macs, name):
    """Bias and relu in registers, on a plain output and on one padded in f (a concatenation's slice) and y/x."""
    from kernel_selector.kernels.convolution import cpu_conv_oc as mod

    monkeypatch.setattr(mod, "OC_MAX_MACS", macs)
    monkeypatch.setattr(mod, "OC_MAX_INPUT_BYTES", macs)
    shape, oc, g = CASES[name]
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1] // g, 1, 1)))
    b = f32(rng.standard_normal(oc))
    want = np.maximum(conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), g), 0)
    for opad in (Padding(), Padding((0, 3, 0, 0), (0, 5, 0, 0))):
        got, _ = run_direct(KERNEL, x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), g, xfmt=Format.bfyx, wfmt=OSV16,
                            ofmt=Format.bfyx, opad=opad, fused=[("activation", {"func": "relu"})])
        assert_close(got, want, rtol=1e-4, atol=1e-4)


@FORMS
@pytest.mark.parametrize("name", ["tails", "one-panel"])
def test_forms_residual_and_chain(rng, monkeypatch, macs, name):
    """A residual sum between two clamps in registers; then, separately, hard_swish and a product with a
    per-channel operand left to the chain pass (the squeeze-and-excitation shape); no bias."""
    from kernel_selector.kernels.convolution import cpu_conv_oc as mod

    monkeypatch.setattr(mod, "OC_MAX_MACS", macs)
    monkeypatch.setattr(mod, "OC_MAX_INPUT_BYTES", macs)
    shape, oc, g = CASES[name]
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1] // g, 1, 1)))
    ref = conv_ref(x, w, None, (1, 1), (1, 1), (0, 0), (0, 0), g)
    res = f32(rng.standard_normal(ref.shape))
    fused = [("activation", {"func": "clamp", "a": -1.0, "b": 3.0}), ("eltwise", {"mode": "sum"}),
             ("activation", {"func": "relu"})]
    got, _ = run_direct(KERNEL, x, w, None, (1, 1), (1, 1), (0, 0), (0, 0), g, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, fused=fused, residual=res)
    assert_close(got, np.maximum(np.clip(ref, -1, 3) + res, 0), rtol=1e-4, atol=1e-4)
    gate = f32(rng.uniform(0.5, 1.5, (shape[0], oc, 1, 1)))
    fused = [("activation", {"func": "hard_swish"}), ("eltwise", {"mode": "prod"})]
    got, _ = run_direct(KERNEL, x, w, None, (1, 1), (1, 1), (0, 0), (0, 0), g, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, fused=fused, residual=gate)
    assert_close(got, ref * np.clip(ref + 3, 0, 6) / 6 * gate, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape,oc,groups,small", [((1, 40, 6, 6), 24, 1, True), ((1, 96, 40, 40), 64, 1, False),
                                                   ((1, 40, 6, 6), 24, 2, False)], ids=["small", "large", "grouped"])
def test_channel_vectors_chosen_for_small_dense_layers_only(rng, monkeypatch, shape, oc, groups, small):
    """use_channel_vectors and the groups split the two forms: a 40 -> 24 layer at 6×6 runs channel-vector tiles;
    96 -> 64 at 40×40 (9.8 M multiply-adds, a 614 KB input) and a grouped layer the pixel-vector GEMM; all equal
    the reference."""
    from kernel_selector.kernels.convolution import convolution_kernel_cpu_packed as mod

    calls = []
    real = mod.oc_tiles
    monkeypatch.setattr(mod, "oc_tiles", lambda *a: (calls.append(1), real(*a)))
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1] // groups, 1, 1)))
    b = f32(rng.standard_normal(oc))
    got, _ = run_direct(KERNEL, x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), groups, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, fused=[("activation", {"func": "relu"})])
    want = np.maximum(conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), groups), 0)
    assert_close(got, want, rtol=1e-4, atol=1e-4)
    assert bool(calls) == small


@pytest.mark.parametrize("indirect", [False, True], ids=["strided-k", "koff-rows"])
def test_channel_vector_micro_kernel_keeps_accumulators_in_vector_registers(indirect):
    """The channel-vector micro-kernel's loop issues OC_PIXELS x OC_VECTORS vector FMAs per k step (a multiple, if
    LLVM unrolls it) on the host's widest registers and moves no vector register to or from the stack, in both
    input forms. Compiled here without numba's cache, whose code cannot be inspected."""
    from kernel_selector.common import cpu_microkernel_oc as mo

    micro, micro_rows = mo.micro_kernel_oc, mo.micro_kernel_oc_rows

    def tile(x, w, c, bias, res, clamp, k, n):  # pragma: no cover - numba
        micro(x, 0, n, mo.OC_PIXELS, w, 0, k, c, 0, n, 0, mo.OC_CHANNELS, bias, 0, res, 0, n, clamp, 3)

    def tile_rows(x, w, c, bias, res, clamp, k, n):  # pragma: no cover - numba
        koff = np.arange(k) * n
        micro_rows(x, 0, koff, 2, mo.OC_PIXELS, w, 0, k, c, 0, n, 0, mo.OC_CHANNELS, bias, 0, res, 0, n, clamp, 3)

    assert_loop_fmas_in_registers(tile_rows if indirect else tile, mo.OC_PIXELS * mo.OC_VECTORS)


def _wide_lanes_spy(monkeypatch) -> list:
    """Both channel-vector rules of convolution_cpu_packed taken with 16 lanes (an AVX-512 host's, whatever this one
    is); returns a list that gets an entry per oc_tiles call."""
    from kernel_selector.kernels.convolution import convolution_kernel_cpu_packed as mod
    from kernel_selector.kernels.convolution import cpu_conv_oc

    monkeypatch.setattr(mod, "use_channel_vectors",
                        lambda oc, k, npix: cpu_conv_oc.use_channel_vectors(oc, k, npix, 16))
    monkeypatch.setattr(mod, "use_grouped_channel_vectors",
                        lambda g, ocg, k, npix: cpu_conv_oc.use_grouped_channel_vectors(g, ocg, k, npix, 16))
    calls: list = []
    real = mod.oc_tiles
    monkeypatch.setattr(mod, "oc_tiles", lambda *a: (calls.append(1), real(*a)))
    return calls


@pytest.mark.parametrize("oc, k, npix, lanes, want", [
    (1024, 256, 196, 16, True),    # ResNet-50's 256 -> 1024 at 14x14: AVX-512 only
    (1024, 256, 196, 8, False),
    (256, 1024, 196, 16, True),    # a 784 KiB input
    (512, 2048, 196, 16, False),   # a 1.5 MiB input
    (2048, 512, 49, 16, True),     # 7x7, a 392 KiB input
    (2048, 512, 36, 16, False),    # 6x6 (past the small-layer rule)
    (512, 128, 784, 16, False),    # 28x28
    (24, 40, 36, 8, True),         # small layers on any host
])
def test_the_channel_vector_rule(oc, k, npix, lanes, want):
    from kernel_selector.kernels.convolution.cpu_conv_oc import use_channel_vectors

    assert use_channel_vectors(oc, k, npix, lanes) is want


@pytest.mark.parametrize("shape, oc, groups", [((1, 512, 14, 14), 128, 1), ((2, 96, 4, 4), 96, 3)],
                         ids=["14x14-window", "grouped"])
def test_the_wide_channel_vector_forms_equal_the_reference(rng, monkeypatch, shape, oc, groups):
    """The forms an AVX-512 host adds (forced here with 16 lanes whatever the host), with bias and relu, against the
    float64 reference: 512 -> 128 at 14x14 (12.8 M multiply-adds, a 392 KiB input: past the small-layer rule)
    through the 14x14 window; a Winograd-product-like grouped layer (3 groups of 32 -> 32, 4x4 pixels, batch 2)
    group by group, where a wrong group offset of the input, the weights, the bias or the output shows."""
    from kernel_selector.kernels.convolution import cpu_conv_oc

    calls = _wide_lanes_spy(monkeypatch)
    if groups == 1:
        assert not cpu_conv_oc.use_channel_vectors(oc, shape[1], shape[2] * shape[3], 8)
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1] // groups, 1, 1)))
    b = f32(rng.standard_normal(oc))
    got, _ = run_direct(KERNEL, x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), groups, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, fused=[("activation", {"func": "relu"})])
    assert calls
    want = np.maximum(conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), groups), 0)
    assert_close(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("groups, ocg, k, npix, lanes, want", [
    (36, 256, 256, 16, 16, True),    # Winograd's 36 products at 14x14 (16 tiles) on AVX-512
    (36, 256, 256, 16, 8, False),    # AVX2: 16 tiles fill the 16-column panels
    (36, 256, 256, 49, 16, False),   # 28x28 (49 tiles): the panels are mostly full
    (3, 40, 80, 16, 16, False),      # channels per group not whole panels
    (1, 256, 256, 16, 16, False),    # not grouped
])
def test_the_grouped_channel_vector_rule(groups, ocg, k, npix, lanes, want):
    from kernel_selector.kernels.convolution.cpu_conv_oc import use_grouped_channel_vectors

    assert use_grouped_channel_vectors(groups, ocg, k, npix, lanes) is want


@pytest.mark.parametrize("rows", [True, False], ids=["row-tiles-in-place", "im2col-tiles"])
def test_a_strided_projection_with_a_residual_on_channel_vectors_equals_the_reference(rng, monkeypatch, rows):
    """ResNet's projection form, 1x1 stride 2 from 14x14 to 7x7, 256 -> 64, bias, a fused residual sum and relu:
    read in place by channel-vector row tiles with the residual in their registers (OC_ROWS_RESIDUAL), or without
    them its im2col patch matrix read by channel-vector tiles (the 7x7 window forced with 16 lanes whatever the
    host); against the float64 reference."""
    from kernel_selector.kernels.convolution import convolution_kernel_cpu_packed as mod

    monkeypatch.setattr(mod, "OC_ROWS_RESIDUAL", rows)
    calls = _wide_lanes_spy(monkeypatch)
    row_calls: list = []
    real_rows = mod.oc_row_tiles
    monkeypatch.setattr(mod, "oc_row_tiles", lambda *a: (row_calls.append(1), real_rows(*a)))
    x = f32(rng.standard_normal((1, 256, 14, 14)))
    w = f32(rng.standard_normal((64, 256, 1, 1)))
    b = f32(rng.standard_normal(64))
    res = f32(rng.standard_normal((1, 64, 7, 7)))
    fused = [("eltwise", {"mode": "sum"}), ("activation", {"func": "relu"})]
    got, _ = run_direct(KERNEL, x, w, b, (2, 2), (1, 1), (0, 0), (0, 0), 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, fused=fused, residual=res)
    assert (bool(row_calls), bool(calls)) == (rows, not rows)
    want = np.maximum(conv_ref(x, w, b, (2, 2), (1, 1), (0, 0), (0, 0), 1) + res, 0)
    assert_close(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("oc, npix, grid, strided, lanes, want", [
    (512, 784, False, True, 16, True),     # ResNet-50's 256 -> 512 stride-2 projection to 28x28, AVX-512
    (512, 784, False, True, 8, False),     # ... AVX2: the GEMM over im2col
    (512, 3136, False, True, 16, False),   # past OC_ROWS_MAX_PIXELS_WIDE
    (512, 196, False, True, 8, True),      # 14x14 on either
    (512, 3136, False, False, 16, False),  # neither a grid nor a strided 1x1
    (24, 3136, True, False, 16, False),    # a grid whose 24 channels fill 0.75 of two panels
    (64, 3136, True, False, 8, True),      # a grid whose channels fill the lanes, any size
])
def test_use_oc_rows_rules(oc, npix, grid, strided, lanes, want):
    """use_oc_rows: strided 1x1 layers up to OC_ROWS_MAX_PIXELS (AVX2) or OC_ROWS_MAX_PIXELS_WIDE (AVX-512) output
    pixels, grids of any size whose channels fill OC_ROWS_GRID_MIN_LANES of their panels."""
    from kernel_selector.kernels.convolution.cpu_conv_oc import use_oc_rows

    assert use_oc_rows(oc, npix, grid, strided, lanes) == want


@pytest.mark.parametrize("extra", [1, 5], ids=["one-pixel-tail", "five-pixel-tail"])
def test_last_tile_moves_back_only_within_its_task(rng, monkeypatch, extra):
    """An image of one tile plus ``extra`` pixels, tanh after the tiles (its chain runs per task over the task's own
    pixels): the partial last tile starts earlier (OVERLAP_LAST_TILE) only when its task also ran the tile before.
    With one task per tile (the tiles split in chunks) a tile moved back would store pre-tanh values over pixels
    whose chain another task already ran; the result must equal tanh of the reference everywhere."""
    from kernel_selector.kernels.convolution import cpu_conv_oc as mod

    monkeypatch.setattr(mod, "OC_MAX_MACS", 1 << 62)
    px, _ = mod.tile_of(int(mod.ALT_TILE))
    npix = px + extra
    x = f32(rng.standard_normal((2, 24, 1, npix)))
    w = f32(rng.standard_normal((40, 24, 1, 1)))
    b = f32(rng.standard_normal(40))
    ref = np.tanh(conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 1))
    for overlap in (True, False):
        monkeypatch.setattr(mod, "OVERLAP_LAST_TILE", overlap)
        got, picked = run_direct(KERNEL, x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 1, xfmt=Format.bfyx, wfmt=OSV16,
                                 ofmt=Format.bfyx, fused=[("activation", {"func": "tanh"})])
        assert picked == KERNEL
        assert_close(got, ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("x_ahead_on_grid", [False, True])
def test_k_by_k_tiles_prefetch_rows_ahead_only_when_asked(rng, monkeypatch, x_ahead_on_grid):
    """OC_PREFETCH_X_GRID: 1×1 layers prefetch their input rows ahead, k×k layers (the padded grid) only with the
    switch on; the weight (large weights only) and down-K prefetches stay on both. A 3×3 layer built with the switch
    gives the float64 reference either way (a prefetch changes no value: the check is that a kernel built with it
    runs)."""
    from kernel_selector.common import cpu_microkernel_oc as mk
    from kernel_selector.kernels.convolution import convolution_kernel_cpu_packed as packed

    monkeypatch.setattr(packed, "OC_PREFETCH_X_GRID", x_ahead_on_grid)
    grid_flags, flat_flags = packed.oc_prefetch_flags(True), packed.oc_prefetch_flags(False)
    assert bool(grid_flags & mk.PREFETCH_X) == x_ahead_on_grid
    assert flat_flags & mk.PREFETCH_X
    for fl in (grid_flags, flat_flags):
        assert fl & mk.PREFETCH_XK and fl & mk.PREFETCH_W_NEXT
    # the next tile's weights only for weights of OC_PREFETCH_W_MIN_BYTES and more
    assert packed.oc_prefetch_flags(False, packed.OC_PREFETCH_W_MIN_BYTES) & mk.PREFETCH_W_NEXT
    assert not packed.oc_prefetch_flags(False, packed.OC_PREFETCH_W_MIN_BYTES - 4) & mk.PREFETCH_W_NEXT
    x = f32(rng.standard_normal((2, 12, 9, 15)))
    w = f32(rng.standard_normal((40, 12, 3, 3)))
    b = f32(rng.standard_normal(40))
    want = np.maximum(conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1), 0)
    got, _ = run_direct(KERNEL, x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, fused=[("activation", {"func": "relu"})])
    assert_close(got, want, rtol=1e-4, atol=1e-4)
