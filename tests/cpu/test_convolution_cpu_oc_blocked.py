"""convolution_cpu_oc_blocked (channel-vector row tiles into b_fs_yx_fsv16) vs an independent float64 convolution.

The kernel runs on NaN-poisoned physical buffers (tests/cpu/conv_harness.run_direct): blocked and bfyx inputs, with
the halo in their padding and (blocked) without it (the zero-bordered copy), blocked and bfyx outputs, padded
outputs, strides, one-panel channel tails, both tiles; then its refusals, and the layout optimizer's whole blocked
regions on networks (passes/blocked_regions.py) against the same reference.
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import ConvolutionAttrs, FusedActivationAttrs, FusedEltwiseAttrs
from kernel_selector.kernels.convolution import convolution_kernel_cpu_oc_blocked as ocb
from kernel_selector.params import FusedOp, Params
from tests.cpu.conv_harness import run_direct
from tests.helpers import assert_close, f32
from tests.references import conv_ref

FSV16, BFYX, OSV16 = Format.b_fs_yx_fsv16, Format.bfyx, Format.os_iyx_osv16
KERNEL = "convolution_cpu_oc_blocked"
NO_PAD = Padding()
RELU = [("activation", {"func": "relu"})]

CASES = [
    # (N, C, H, W), OC, K, stride, pad, input format, input halo in its padding, output format, output padding
    ((2, 32, 9, 17), 48, 1, 1, 0, FSV16, False, FSV16, False),  # 1x1, a one-panel channel tail
    ((1, 32, 13, 15), 64, 3, 1, 1, FSV16, True, FSV16, True),  # 3x3 reading its halo in place, padded output
    ((1, 32, 13, 15), 32, 3, 1, 1, FSV16, False, FSV16, False),  # the zero-bordered copy
    ((2, 3, 21, 19), 32, 3, 2, 1, BFYX, True, FSV16, False),  # a first layer from bfyx, stride 2
    ((2, 3, 23, 37), 32, 7, 2, 3, BFYX, False, FSV16, True),  # 7x7 stem from unpadded bfyx: zero-bordered planes
    ((1, 16, 12, 30), 40, 3, 1, 1, FSV16, True, BFYX, True),  # blocked in, bfyx out (rows of 30: wide tiles)
    ((1, 48, 16, 18), 32, 1, 2, 0, FSV16, False, FSV16, False),  # strided 1x1
    ((1, 16, 9, 29), 96, 3, 1, 1, BFYX, True, FSV16, True),  # rows of 29: the wide tile and a moved-back last one
    ((2, 32, 13, 13), 40, 1, 1, 0, FSV16, False, BFYX, False),  # 1x1 run flat (flat_rows: one row of 169), bfyx out
    ((1, 16, 17, 17), 64, 1, 1, 0, BFYX, False, FSV16, False),  # 1x1 flat from bfyx (one row of 289)
    ((2, 32, 10, 10), 48, 1, 1, 0, FSV16, False, FSV16, False),  # 1x1 flat in 4 rows of 25
    ((1, 32, 10, 20), 32, 1, 1, 0, FSV16, False, BFYX, False),  # 1x1 flat in 5 rows of 40, bfyx out
    ((1, 32, 13, 13), 48, 1, 1, 0, FSV16, True, FSV16, True),  # 1x1 with x padding in and out: its own rows
]


def _case_id(c):
    return f"c{c[0][1]}-oc{c[1]}-k{c[2]}-s{c[3]}-{c[5].name}{'h' if c[6] else ''}-{c[7].name}{'p' if c[8] else ''}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_matches_reference(rng, case):
    shape, oc, k, s, p, xfmt, halo, ofmt, opad = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1], k, k)))
    b = f32(rng.standard_normal(oc))
    xpad = Padding((0, 0, p + 1, p), (0, 0, p, p + 2)) if halo else NO_PAD
    opads = Padding((0, 0, 1, 1), (0, 0, 2, 1)) if opad else NO_PAD
    got, chosen = run_direct(KERNEL, x, w, b, (s, s), (1, 1), (p, p), (p, p), 1, xfmt=xfmt, wfmt=OSV16, ofmt=ofmt,
                             xpad=xpad, opad=opads, fused=RELU)
    assert chosen == KERNEL
    assert_close(got, np.maximum(conv_ref(x, w, b, (s, s), (1, 1), (p, p), (p, p), 1), 0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("oh, ow", [(13, 13), (17, 17), (35, 35), (55, 55), (56, 56), (10, 10), (9, 17)])
def test_flat_rows_cover_the_image_and_cost_no_more(oh, ow):
    rows, width = ocb.flat_rows(oh, ow, 64)
    assert rows * width == oh * ow and ocb.MIN_WIDTH <= width
    assert width == ow or width <= ocb.FLAT_MAX_WIDTH
    assert rows * ocb._row_cost(width, 64, oh * ow) <= oh * ocb._row_cost(ow, 64, oh * ow)


def test_flat_path_taken_only_for_back_to_back_rows(rng, monkeypatch):
    calls = []
    real = ocb.flat_rows
    monkeypatch.setattr(ocb, "flat_rows", lambda *a: calls.append(a) or real(*a))
    x = f32(rng.standard_normal((1, 16, 13, 13)))
    w = f32(rng.standard_normal((32, 16, 1, 1)))
    want = conv_ref(x, w, None, (1, 1), (1, 1), (0, 0), (0, 0), 1)
    for xpad, flat in ((NO_PAD, True), (Padding((0, 0, 1, 0), (0, 0, 0, 0)), True),
                       (Padding((0, 0, 0, 1), (0, 0, 0, 0)), False)):
        calls.clear()
        got, chosen = run_direct(KERNEL, x, w, None, (1, 1), (1, 1), (0, 0), (0, 0), 1, xfmt=FSV16, wfmt=OSV16,
                                 ofmt=FSV16, xpad=xpad)
        assert chosen == KERNEL and bool(calls) == flat, xpad
        assert_close(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape, k, s, p", [((2, 32, 9, 20), 1, 1, 0), ((1, 16, 13, 13), 1, 1, 0),
                                            ((1, 32, 11, 29), 3, 1, 1), ((2, 16, 12, 17), 3, 2, 1)],
                         ids=["1x1", "1x1-flat", "3x3", "3x3-s2"])
def test_residual_sum_in_the_epilogue(rng, shape, k, s, p):
    """relu(conv + residual) with a b_fs_yx_fsv16 residual of the output's shape (ResNet's bottleneck end), 48
    output channels (a channel tail), the flat 1×1 path included."""
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((48, shape[1], k, k)))
    b = f32(rng.standard_normal(48))
    want = conv_ref(x, w, b, (s, s), (1, 1), (p, p), (p, p), 1)
    r = f32(rng.standard_normal(want.shape))
    got, chosen = run_direct(KERNEL, x, w, b, (s, s), (1, 1), (p, p), (p, p), 1, xfmt=FSV16, wfmt=OSV16, ofmt=FSV16,
                             xpad=Padding((0, 0, p, p), (0, 0, p, p)),
                             fused=[("eltwise", {"mode": "sum"}), ("activation", {"func": "relu"})], residual=r,
                             rfmt=FSV16)
    assert chosen == KERNEL
    assert_close(got, np.maximum(want + r, 0), rtol=1e-4, atol=1e-4)


def test_clamp_no_bias_and_dilation(rng):
    x = f32(rng.standard_normal((1, 16, 14, 16)))
    w = f32(rng.standard_normal((32, 16, 3, 3)))
    got, _ = run_direct(KERNEL, x, w, None, (1, 1), (2, 2), (2, 2), (2, 2), 1, xfmt=FSV16, wfmt=OSV16, ofmt=FSV16,
                        fused=[("activation", {"func": "clamp", "a": -0.5, "b": 0.7})])
    assert_close(got, np.clip(conv_ref(x, w, None, (1, 1), (2, 2), (2, 2), (2, 2), 1), -0.5, 0.7), rtol=1e-4,
                 atol=1e-4)


def _params(xlay, oc, k, *, groups=1, ofmt=FSV16, ops=(), out_w=None):
    n, c, h, wd = xlay.shape
    w = Layout(DataType.f32, OSV16, (oc, c // groups, k, k))
    p = k // 2
    out = Layout(DataType.f32, ofmt, (n, oc, h, out_w or wd))
    return Params("convolution", "cpu", [xlay, w], out, ConvolutionAttrs(pad=(p, p), pad_end=(p, p), groups=groups),
                  list(ops))


def test_refusals_name_expected_and_actual():
    kern = ocb.ConvolutionKernelCpuOcBlocked()
    blk = Layout(DataType.f32, FSV16, (1, 32, 12, 12))
    assert kern.validate(_params(blk, 32, 3)) is None
    why = kern.validate(_params(Layout(DataType.f32, FSV16, (1, 20, 12, 12)), 32, 1))
    assert why and "20 channels" in why and "multiple of 16" in why
    assert kern.validate(_params(Layout(DataType.f32, BFYX, (1, 32, 12, 12)), 32, 3)) is None  # copied halo
    why = kern.validate(_params(Layout(DataType.f32, BFYX, (1, 32, 12, 12)), 32, 1, ofmt=BFYX))
    assert why and "bfyx" in why
    why = kern.validate(_params(blk, 32, 3, groups=2))
    assert why and "groups" in why
    why = kern.validate(_params(Layout(DataType.f32, FSV16, (2, 32, 7, 7)), 32, 3))
    assert why and "7 pixels" in why and str(ocb.MIN_WIDTH) in why
    assert kern.validate(_params(Layout(DataType.f32, FSV16, (1, 32, 7, 7)), 32, 3)) is None  # ANY_SHAPE, batch 1
    why = kern.validate(_params(Layout(DataType.f32, FSV16, (1, 32, 6, 6)), 32, 3))
    assert why and "6 pixels" in why and str(ocb.MIN_WIDTH_ANY) in why
    res = Layout(DataType.f32, FSV16, (1, 32, 12, 12))
    elt = FusedOp("eltwise", FusedEltwiseAttrs(mode="sum"), [res], [2])
    assert kern.validate(_params(blk, 32, 3, ops=[elt])) is None  # a blocked residual of the output's shape
    bcast = FusedOp("eltwise", FusedEltwiseAttrs(mode="sum"), [Layout(DataType.f32, FSV16, (1, 32, 1, 1))], [2])
    why = kern.validate(_params(blk, 32, 3, ops=[bcast]))
    assert why and "eltwise" in why
    why = kern.validate(_params(blk, 32, 3, ofmt=BFYX, ops=[elt]))  # a bfyx output takes no residual here
    assert why and "eltwise" in why
    act = FusedOp("activation", FusedActivationAttrs(func="relu"))
    assert kern.validate(_params(blk, 32, 3, ops=[act])) is None


def test_switch_off_refuses(monkeypatch):
    monkeypatch.setattr(ocb, "ENABLED", False)
    why = ocb.ConvolutionKernelCpuOcBlocked().validate(_params(Layout(DataType.f32, FSV16, (1, 32, 12, 12)), 32, 3))
    assert why and "ENABLED" in why


def _conv(topo, rng, cid, src, cin, cout, k, ref, relu=True):
    """Add a convolution (weights and bias seeded from ``rng``) to ``topo`` and its float64 result to ``ref``."""
    w = f32(rng.standard_normal((cout, cin, k, k)) / np.sqrt(cin * k * k))
    b = f32(rng.standard_normal(cout))
    p = k // 2
    topo.add(cl.Data(f"{cid}_w", w), cl.Data(f"{cid}_b", b),
             cl.Convolution(cid, src, weights=f"{cid}_w", bias=f"{cid}_b", pad=(p, p)))
    y = conv_ref(ref[src], w, b, (1, 1), (1, 1), (p, p), (p, p), 1)
    if relu:
        topo.add(cl.Activation(f"{cid}_r", cid, "relu"))
        ref[f"{cid}_r"] = np.maximum(y, 0)
    else:
        ref[cid] = y


def _fire_net(rng, middle=None):
    """A SqueezeNet-style graph: squeeze 1x1 → expand 1x1 and 3x3 → concat → ``middle`` ("pool": a 3×3 stride-2 max
    pooling; a tuple (mode, kernel, stride, pad, pad_end, ceil_mode): that pooling; "lrn": an LRN) → squeeze 1x1
    → 3x3 (the network output); returns (topology, input, reference of the output)."""
    from tests.references import lrn_ref, pool_ref

    x = f32(rng.standard_normal((2, 16, 20, 23)))
    ref = {"x": x.astype(np.float64)}
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(DataType.f32, BFYX, x.shape)))
    _conv(topo, rng, "s1", "x", 16, 16, 1, ref)
    _conv(topo, rng, "e1", "s1_r", 16, 32, 1, ref)
    _conv(topo, rng, "e3", "s1_r", 16, 32, 3, ref)
    topo.add(cl.Concatenation("cat", ["e1_r", "e3_r"], axis=1))
    ref["cat"] = np.concatenate([ref["e1_r"], ref["e3_r"]], axis=1)
    if middle == "pool":
        middle = ("max", (3, 3), (2, 2), (0, 0), (0, 0), False)
    if isinstance(middle, tuple):  # (mode, kernel, stride, pad, pad_end, ceil_mode)
        mode, k, st, pb, pe, ceil = middle
        topo.add(cl.Pooling("mid", "cat", mode=mode, kernel=k, stride=st, pad=pb, pad_end=pe, ceil_mode=ceil))
        ref["mid"] = pool_ref(ref["cat"], cl.PoolingMode(mode), k, st, pb, pe, ceil)
    else:
        topo.add(cl.LRN("mid", "cat", size=5, alpha=1e-2, beta=0.75, k=1.0))
        ref["mid"] = lrn_ref(ref["cat"], 5, 1e-2, 0.75, 1.0)
    _conv(topo, rng, "s2", "mid", 64, 16, 1, ref)
    _conv(topo, rng, "f3", "s2_r", 16, 32, 3, ref, relu=False)
    return topo, x, ref["f3"]


def _formats(net, ids):
    return {i: (net.program.node(i).impl.kernel_name, net.program.node(i).layout().format) for i in ids}


def test_fire_modules_run_blocked(cpu_engine, rng):
    """The layout optimizer makes the fire-style region blocked (the expand layers write b_fs_yx_fsv16, the concat
    is their shared buffer, the strided pooling follows); the last layer, a network output, reads it and writes
    bfyx; every value matches the float64 reference."""
    topo, x, ref = _fire_net(rng, "pool")
    net = cl.Network(cl.Program(cpu_engine, topo))
    net.poison()
    got = net.run({"x": x})["f3"]
    assert_close(got, ref, rtol=1e-4, atol=1e-4)
    f = _formats(net, ["s1", "e1", "e3", "s2", "f3"])
    assert all(k == KERNEL for k, _ in f.values()), f
    assert [f[i][1] for i in ("s1", "e1", "e3", "s2")] == [FSV16] * 4 and f["f3"][1] == BFYX, f
    assert net.program.node("cat").optimized_out  # in place: the expand layers write their slices


def test_plain_reader_keeps_region_plain(cpu_engine, rng, monkeypatch):
    """An LRN reading the concat (no fast blocked CPU kernel) keeps the expand layers bfyx; the squeeze layer before
    them stays blocked only where every reader takes it. Same values with the blocked kernel switched off."""
    topo, x, ref = _fire_net(rng, "lrn")
    net = cl.Network(cl.Program(cpu_engine, topo))
    got = net.run({"x": x})["f3"]
    assert_close(got, ref, rtol=1e-4, atol=1e-4)
    f = _formats(net, ["e1", "e3", "s2"])
    assert f["e1"][1] == f["e3"][1] == BFYX and f["s2"][1] == FSV16, f
    monkeypatch.setattr(ocb, "ENABLED", False)
    plain = cl.Network(cl.Program(cpu_engine, topo))
    assert all(plain.program.node(i).layout().format == BFYX for i in ("s1", "e1", "e3", "s2", "f3"))
    assert_close(plain.run({"x": x})["f3"], ref, rtol=1e-4, atol=1e-4)


POOLS = [
    ("max", (3, 3), (2, 2), (1, 1), (1, 1), True),            # padded, ceil: border pixels with fewer taps
    ("average", (3, 3), (2, 2), (1, 1), (0, 1), True),        # count_include_pad, asymmetric pad_end
    ("average_no_padding", (2, 2), (2, 2), (0, 0), (0, 0), False),
]


@pytest.mark.parametrize("tight", [False, True], ids=["one-band", "window-bands"])
@pytest.mark.parametrize("pool", POOLS, ids=lambda p: f"{p[0]}-k{p[1][0]}-p{p[3][0]}")
def test_fire_pooling_fused_into_blocked_convs(cpu_engine, rng, monkeypatch, pool, tight):
    """fuse_pool_into_conv puts the pooling of the blocked concat into both expand layers (cpu_conv_pool_blocked:
    bands of b_fs_yx_fsv16 rows pooled into the pooled concat's slices; ``tight``: bands of the window's rows only,
    so rows two bands share are moved); the values match the float64 reference, and match it with FUSED_POOL off,
    where the pooling runs on its own."""
    if tight:
        monkeypatch.setattr(ocb, "BAND_BYTES", 1)
    topo, x, ref = _fire_net(rng, pool)
    net = cl.Network(cl.Program(cpu_engine, topo))
    net.poison()
    assert_close(net.run({"x": x})["f3"], ref, rtol=1e-4, atol=1e-4)
    for cid in ("e1", "e3"):
        node = net.program.node(cid)
        assert node.impl.kernel_name == KERNEL and node.layout().format == FSV16, _formats(net, [cid])
        assert [op.kind for op in node.fused_ops][-1] == "pooling"
    monkeypatch.setattr(ocb, "FUSED_POOL", False)
    apart = cl.Network(cl.Program(cpu_engine, topo))
    assert apart.program.node("mid").impl.kernel_name == "pooling_cpu_fsv16"
    assert all(op.kind != "pooling" for op in apart.program.node("e3").fused_ops)
    apart.poison()
    assert_close(apart.run({"x": x})["f3"], ref, rtol=1e-4, atol=1e-4)


def test_first_layer_reads_plain_input_in_place(cpu_engine, rng, monkeypatch):
    """A first layer of 3 channels without pads (SqueezeNet's stem) → relu → 3×3 stride-2 max pooling → 1×1: the
    stem is chosen blocked from its bfyx input read in place (kernel_params.fast_blocked_for; no reorder), its
    pooling fused; with BFYX_IN_PLACE off it stays bfyx on convolution_cpu_packed. Both match float64."""
    from cldnn_py import kernel_params
    from tests.references import pool_ref

    x = f32(rng.standard_normal((2, 3, 37, 41)))
    ref = {"x": x.astype(np.float64)}
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(DataType.f32, BFYX, x.shape)))
    w = f32(rng.standard_normal((32, 3, 3, 3)) / 5)
    topo.add(cl.Data("c0_w", w), cl.Convolution("c0", "x", weights="c0_w", stride=(2, 2)),
             cl.Activation("c0_r", "c0", "relu"),
             cl.Pooling("pool", "c0_r", mode="max", kernel=(3, 3), stride=(2, 2)))
    ref["pool"] = pool_ref(np.maximum(conv_ref(ref["x"], w, None, (2, 2), (1, 1), (0, 0), (0, 0), 1), 0),
                           cl.PoolingMode.max, (3, 3), (2, 2), (0, 0), (0, 0), False)
    _conv(topo, rng, "c1", "pool", 32, 16, 1, ref, relu=False)
    for on in (True, False):
        monkeypatch.setattr(kernel_params, "BFYX_IN_PLACE", on)
        net = cl.Network(cl.Program(cpu_engine, topo))
        stem = net.program.node("c0")
        assert (stem.impl.kernel_name, stem.layout().format) == ((KERNEL, FSV16) if on else
                                                                 ("convolution_cpu_packed", BFYX))
        assert stem.dependencies[0].id == "x"  # read in place, no reorder
        assert [op.kind for op in stem.fused_ops][-1:] == ["pooling"]
        net.poison()
        assert_close(net.run({"x": x})["c1"], ref["c1"], rtol=1e-4, atol=1e-4)
