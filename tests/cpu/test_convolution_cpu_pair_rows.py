"""Channel-vector row tiles over two output rows (cpu_conv_oc.pair_rows, micro_kernel_oc_rows_pair): 7-wide maps
on a host whose second tile is the 14 × 32 wide-row one, against the float64 reference on NaN-poisoned buffers."""

from __future__ import annotations

import numpy as np
import pytest

from cldnn_py.layout import Format, Padding
from kernel_selector.kernels.convolution import convolution_kernel_cpu_packed as packed
from kernel_selector.kernels.convolution import cpu_conv_oc
from tests.cpu.conv_harness import run_direct
from tests.helpers import assert_close, f32
from tests.references import conv_ref

KERNEL = "convolution_cpu_packed"
FULL_RATE_TILES = bool(cpu_conv_oc.ALT_WIDE and cpu_conv_oc.ALT_CHANNELS == cpu_conv_oc.OC_CHANNELS)


@pytest.mark.parametrize("ow, koff, ldy, r_y, want", [
    (7, True, 7, None, 1), (7, True, 7, 7, 1), (7, False, 7, None, 0), (7, True, 9, None, 0), (7, True, 7, 9, 0),
    (14, True, 14, None, 0), (6, True, 6, None, 0)])
def test_the_pair_rule(monkeypatch, ow, koff, ldy, r_y, want):
    """Two rows per tile only for 7-wide rows read through an offset table whose output (and residual) rows are
    contiguous, on a host with the wide-row second tile, and only while PAIR_ROWS."""
    monkeypatch.setattr(cpu_conv_oc, "ALT_WIDE", True)
    monkeypatch.setattr(cpu_conv_oc, "ALT_PIXELS", 14)
    monkeypatch.setattr(cpu_conv_oc, "ALT_CHANNELS", cpu_conv_oc.OC_CHANNELS)
    assert cpu_conv_oc.pair_rows(ow, koff, ldy, r_y) == want
    monkeypatch.setattr(cpu_conv_oc, "PAIR_ROWS", False)
    assert cpu_conv_oc.pair_rows(ow, koff, ldy, r_y) == 0
    monkeypatch.setattr(cpu_conv_oc, "PAIR_ROWS", True)
    monkeypatch.setattr(cpu_conv_oc, "ALT_WIDE", False)
    assert cpu_conv_oc.pair_rows(ow, koff, ldy, r_y) == 0


@pytest.fixture
def pairs(monkeypatch):
    """The pair decisions of the layers built in the test (the row tiles' form forced on for 7×7 outputs)."""
    if not FULL_RATE_TILES:
        pytest.skip("this host's second channel-vector tile is not the 14 x 32 wide-row one (half-rate AVX-512 or "
                    "narrower vectors)")
    monkeypatch.setattr(cpu_conv_oc, "OC_ROWS_MAX_PIXELS", 1 << 30)
    monkeypatch.setattr(cpu_conv_oc, "OC_ROWS_MAX_PIXELS_WIDE", 1 << 30)
    seen = []
    rule = packed.pair_rows
    monkeypatch.setattr(packed, "pair_rows", lambda *a: seen.append(rule(*a)) or seen[-1])
    return seen


CASES = [  # x shape, oc, kernel, stride, pad, input padding (the producer's halo: the grid read in place)
    ((2, 24, 7, 7), 48, (3, 3), (1, 1), (1, 1), 1),     # 3x3 on 7x7: a pair of 32 channels, then one panel of 16
    ((1, 40, 14, 14), 64, (3, 3), (2, 2), (1, 1), 1),   # stride 2 to 7x7
    ((2, 24, 7, 7), 32, (3, 3), (1, 1), (1, 1), 0),     # the grid copied (no halo)
    ((2, 36, 13, 13), 37, (1, 1), (2, 2), (0, 0), 0),   # a strided 1x1 projection to 7x7 in place, a 5-channel tail
]


@pytest.mark.parametrize("chain", ["relu", "residual-relu", "tanh"])
@pytest.mark.parametrize("case", CASES, ids=["3x3", "3x3-s2", "3x3-copied", "1x1-s2"])
def test_pairs_of_rows_match_the_reference(rng, monkeypatch, pairs, case, chain):
    """Pairs of 7-pixel rows (3 per image, the seventh row alone), with relu in registers, a residual sum (strided 1×1
    only: k×k layers with one take another form), or tanh after the tiles (the chain over the pair's rows): equal to
    the reference, and equal to the one-row form."""
    shape, oc, k, stride, pad, halo = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1]) + k))
    b = f32(rng.standard_normal(oc))
    ref = conv_ref(x, w, b, stride, (1, 1), pad, pad, 1)
    res = f32(rng.standard_normal(ref.shape)) if chain == "residual-relu" else None
    fused = {"relu": [("activation", {"func": "relu"})],
             "residual-relu": [("eltwise", {"mode": "sum"}), ("activation", {"func": "relu"})],
             "tanh": [("activation", {"func": "tanh"})]}[chain]
    want = {"relu": np.maximum(ref, 0), "tanh": np.tanh(ref)}.get(chain)
    want = np.maximum(ref + res, 0) if res is not None else want

    def run():
        return run_direct(KERNEL, x, w, b, stride, (1, 1), pad, pad, 1, xfmt=Format.bfyx, wfmt=Format.os_iyx_osv16,
                          ofmt=Format.bfyx, xpad=Padding((0, 0, halo, halo), (0, 0, halo, halo)), fused=fused,
                          residual=res)[0]

    got = run()
    assert_close(got, want, rtol=1e-4, atol=1e-4)
    if res is not None and k != (1, 1):  # a k×k layer with a residual runs the pixel-vector row panels (form_of)
        assert not pairs
        return
    assert pairs and pairs[-1] == 1, "the layer did not take two rows per tile"
    monkeypatch.setattr(cpu_conv_oc, "PAIR_ROWS", False)
    one_row = run()
    assert pairs[-1] == 0
    assert_close(got, one_row, rtol=1e-5, atol=1e-5)


def test_a_padded_output_row_keeps_one_row_per_tile(rng, pairs):
    """Output rows with padding between them (ldy != 7) are not contiguous: one row per tile, still exact."""
    x = f32(rng.standard_normal((1, 16, 7, 7)))
    w = f32(rng.standard_normal((32, 16, 3, 3)))
    b = f32(rng.standard_normal(32))
    got, _ = run_direct(KERNEL, x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1, xfmt=Format.bfyx,
                        wfmt=Format.os_iyx_osv16, ofmt=Format.bfyx, opad=Padding((0, 0, 1, 1), (0, 0, 1, 1)))
    assert pairs and pairs[-1] == 0
    assert_close(got, conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1), rtol=1e-4, atol=1e-4)
