"""convolution_cpu_packed with a zero halo in its buffers (passes/prepare_padding.py on the CPU engine).

A k×k layer on channel-vector row tiles whose input padding covers every tap reads that input in place
(``IN_PLACE_GRID``: no copy into zero-bordered planes); a 1×1 stride-1 layer with a spatially padded output stores
its row tiles straight into the padded rows (``ROWS_INTO_PADDED``) and never touches the padding. Both against an
independent float64 convolution on NaN-poisoned output buffers (conv_harness.run_direct: the output's padding must
stay NaN).
"""

from __future__ import annotations

import numpy as np
import pytest

from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import ConvolutionAttrs
from kernel_selector import Params
from kernel_selector.kernels.convolution import convolution_kernel_cpu_packed as packed
from tests.cpu.conv_harness import run_direct
from tests.helpers import assert_close, f32
from tests.references import conv_ref

KERNEL = "convolution_cpu_packed"
OSV16 = Format.os_iyx_osv16


NO_PAD = Padding()


def _params(xshape, oc, k, stride, dil, pad, pad_end, xpad=NO_PAD, opad=NO_PAD):
    """The Params of a dense bfyx layer (no bias, no fused ops) with these paddings."""
    a = ConvolutionAttrs(stride=stride, dilation=dil, pad=pad, pad_end=pad_end, groups=1)
    oh = (xshape[2] + pad[0] + pad_end[0] - dil[0] * (k[0] - 1) - 1) // stride[0] + 1
    ow = (xshape[3] + pad[1] + pad_end[1] - dil[1] * (k[1] - 1) - 1) // stride[1] + 1
    lays = [Layout(DataType.f32, Format.bfyx, xshape, xpad), Layout(DataType.f32, OSV16, (oc, xshape[1]) + k)]
    return Params("convolution", "cpu", lays, Layout(DataType.f32, Format.bfyx, (xshape[0], oc, oh, ow), opad), a, [])


def _no_copy(*args):
    raise AssertionError("the input was copied into zero-bordered planes although its own halo covers the taps")


@pytest.mark.parametrize("case", [
    # (N, C, H, W), OC, (KH, KW), stride, dilation, pad, pad_end, input padding (lower, upper)
    ((2, 20, 9, 11), 32, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), ((1, 1), (1, 1))),  # "same" 3x3, the exact halo
    ((1, 24, 10, 13), 48, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), ((1, 1), (0, 1))),  # stride 2: no row after
    ((1, 16, 12, 12), 20, (5, 3), (1, 2), (2, 1), (4, 1), (4, 1), ((4, 1), (4, 2))),  # dilated, OC tail, wider pad
    ((2, 8, 7, 7), 16, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), ((2, 3), (1, 2))),  # more padding than the halo
], ids=["3x3-same", "3x3-s2", "5x3-dilated", "extra-padding"])
@pytest.mark.parametrize("chain", [[], [("activation", {"func": "relu"})], [("activation", {"func": "tanh"})]],
                         ids=["none", "relu-registers", "tanh-chain"])
def test_padded_input_read_in_place(rng, monkeypatch, case, chain):
    """Input padding that covers the halo: the row tiles read it in place (pad_planes never runs) and the output
    equals the reference; the padding holds zeros, as a producer padded by prepare_padding leaves it."""
    monkeypatch.setattr(packed, "pad_planes", _no_copy)
    shape, oc, k, stride, dil, pad, pad_end, (lo, hi) = case
    xpad = Padding((0, 0) + lo, (0, 0) + hi)
    f = packed.form_of(_params(shape, oc, k, stride, dil, pad, pad_end, xpad))
    assert f.grid and f.oc_rows and f.in_place
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1]) + k))
    b = f32(rng.standard_normal(oc))
    ref = conv_ref(x, w, b, stride, dil, pad, pad_end, 1)
    want = {"none": ref, "relu": np.maximum(ref, 0), "tanh": np.tanh(ref)}[chain[0][1]["func"] if chain else "none"]
    got, name = run_direct(KERNEL, x, w, b, stride, dil, pad, pad_end, 1, xfmt=Format.bfyx, wfmt=OSV16,
                           ofmt=Format.bfyx, xpad=xpad, fused=chain)
    assert name == KERNEL
    assert_close(got, want, rtol=1e-4, atol=1e-4)


def test_in_place_with_residual_sum(rng, monkeypatch):
    """A residual sum and relu in the row tiles' register epilogue on an input read in place."""
    monkeypatch.setattr(packed, "pad_planes", _no_copy)
    x = f32(rng.standard_normal((2, 16, 8, 9)))
    w = f32(rng.standard_normal((32, 16, 3, 3)))
    res = f32(rng.standard_normal((2, 32, 8, 9)))
    got, _ = run_direct(KERNEL, x, w, None, (1, 1), (1, 1), (1, 1), (1, 1), 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, xpad=Padding((0, 0, 1, 1), (0, 0, 1, 1)),
                        fused=[("eltwise", {"mode": "sum"}), ("activation", {"func": "relu"})], residual=res)
    assert_close(got, np.maximum(conv_ref(x, w, None, (1, 1), (1, 1), (1, 1), (1, 1), 1) + res, 0),
                 rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("lo,hi", [((0, 1), (1, 1)), ((1, 1), (1, 0)), ((1, 0), (0, 0))],
                         ids=["no-top-row", "no-right-column", "x-halo-missing"])
def test_short_padding_is_copied(rng, lo, hi):
    """Padding that misses part of the halo: the layer copies its input into the zero-bordered grid as before
    (the padding is never read as if it were zeros) and still equals the reference."""
    shape, k = (1, 12, 7, 9), (3, 3)
    xpad = Padding((0, 0) + lo, (0, 0) + hi)
    assert not packed.form_of(_params(shape, 16, k, (1, 1), (1, 1), (1, 1), (1, 1), xpad)).in_place
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((16, 12) + k))
    got, _ = run_direct(KERNEL, x, w, None, (1, 1), (1, 1), (1, 1), (1, 1), 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, xpad=xpad)
    assert_close(got, conv_ref(x, w, None, (1, 1), (1, 1), (1, 1), (1, 1), 1), rtol=1e-4, atol=1e-4)


def test_halo_read_in_place_reports_the_halo(monkeypatch):
    """The halo prepare_padding gives the producer: the taps outside the input, none for a 1×1 layer that reads a
    padded input in place (ROWS_FROM_PADDED), or None for a form that would copy (IN_PLACE_GRID, ROWS_FROM_PADDED
    off)."""
    p = _params((1, 16, 10, 13), 32, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1))
    assert packed.halo_read_in_place(p) == (1, 0, 1, 1)  # 13 wide, stride 2: the last window reaches x = 13
    one = _params((1, 16, 8, 8), 32, (1, 1), (1, 1), (1, 1), (0, 0), (0, 0))
    assert packed.halo_read_in_place(one) == (0, 0, 0, 0)  # no halo, but a padded input is read in place
    monkeypatch.setattr(packed, "IN_PLACE_GRID", False)
    monkeypatch.setattr(packed, "ROWS_FROM_PADDED", False)
    assert packed.halo_read_in_place(p) is None and packed.halo_read_in_place(one) is None


@pytest.mark.parametrize("shape,oc", [((2, 40, 7, 7), 64), ((1, 24, 14, 9), 20), ((1, 64, 5, 30), 16)],
                         ids=["7x7-two-panels", "oc-tail", "wide-rows"])
@pytest.mark.parametrize("fused", ["relu", "residual-relu", "tanh"])
@pytest.mark.parametrize("any_size", [True, False], ids=["rows", "rows-small-only"])
@pytest.mark.parametrize("second", [True, False], ids=["second-tile", "main-tile"])
def test_1x1_into_padded_output(rng, monkeypatch, shape, oc, fused, any_size, second):
    """A 1×1 stride-1 layer into a spatially (and feature-) padded output: the row tiles store into the padded rows
    (the harness checks the padding stays NaN) on the input in place (direct rows, no offset table) and equal the
    reference, with relu in registers, a residual sum, or tanh after the tiles; in both channel-vector tiles
    (cpu_conv_oc.ALT_TILE; one weight panel, two, and a channel tail)."""
    from kernel_selector.kernels.convolution import cpu_conv_oc

    monkeypatch.setattr(packed, "ROWS_ANY", any_size)
    monkeypatch.setattr(cpu_conv_oc, "ALT_TILE", int(second))
    opad = Padding((0, 3, 1, 1), (0, 2, 1, 2))
    f = packed.form_of(_params(shape, oc, (1, 1), (1, 1), (1, 1), (0, 0), (0, 0), opad=opad))
    assert f.rows_out == (any_size or packed.use_channel_vectors(oc, shape[1], shape[2] * shape[3]))
    assert packed.writes_padded_rows(_params(shape, oc, (1, 1), (1, 1), (1, 1), (0, 0), (0, 0), opad=opad)) == \
        f.rows_out
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1], 1, 1)))
    b = f32(rng.standard_normal(oc))
    ref = conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 1)
    res = f32(rng.standard_normal(ref.shape)) if fused == "residual-relu" else None
    chain = {"relu": [("activation", {"func": "relu"})], "tanh": [("activation", {"func": "tanh"})],
             "residual-relu": [("eltwise", {"mode": "sum"}), ("activation", {"func": "relu"})]}[fused]
    want = {"relu": np.maximum(ref, 0), "tanh": np.tanh(ref),
            "residual-relu": np.maximum(ref + (res if res is not None else 0), 0)}[fused]
    got, _ = run_direct(KERNEL, x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, opad=opad, fused=chain, residual=res)
    assert_close(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape,oc", [((2, 40, 7, 9), 64), ((1, 200, 6, 5), 20)], ids=["short-k", "long-k-oc-tail"])
@pytest.mark.parametrize("opad", [NO_PAD, Padding((0, 8, 0, 0), (0, 4, 1, 1))], ids=["plain-out", "padded-out"])
def test_1x1_reads_a_padded_input_in_place(rng, monkeypatch, shape, oc, opad):
    """A 1×1 stride-1 layer whose input is spatially padded (its producer's other users are k×k layers) runs row
    tiles over the input's interior (no copy into planes: pad_planes never runs) into a plain or padded output."""
    monkeypatch.setattr(packed, "pad_planes", _no_copy)
    xpad = Padding((0, 0, 1, 2), (0, 0, 2, 1))
    f = packed.form_of(_params(shape, oc, (1, 1), (1, 1), (1, 1), (0, 0), (0, 0), xpad, opad))
    assert f.rows_in and f.oc_rows and not f.grid
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1], 1, 1)))
    b = f32(rng.standard_normal(oc))
    got, _ = run_direct(KERNEL, x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, xpad=xpad, opad=opad, fused=[("activation", {"func": "relu"})])
    assert_close(got, np.maximum(conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 1), 0), rtol=1e-4, atol=1e-4)
