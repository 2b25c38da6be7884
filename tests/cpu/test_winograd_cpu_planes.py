"""winograd_input_cpu_planes / winograd_output_cpu_planes (the CPU engine's Winograd F(4×4, 3×3) transforms on bfyx,
channel-major V and M) against float64 numpy transforms, run on NaN-poisoned physical buffers (padded inputs and
outputs, tiles that stick out of the image, pads 0-2, batch 2, channel counts that are not multiples of 16, a fused
residual sum and a clamp); and the winograd_convolutions pass on the CPU engine: a ResNet-sized 3×3 convolution with a
fused residual and ReLU becomes winograd_input → a 1×1 convolution with 36 groups → winograd_output with these kernels
and matches the direct convolution, while a layer with too few channels keeps the direct kernel."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import FusedActivationAttrs, FusedEltwiseAttrs
from cldnn_py.ops.winograd import AT, BT, tiles
from cldnn_py.passes import winograd_convolutions as wc
from kernel_selector.params import FusedOp
from tests.cpu.kernel_harness import run_kernel
from tests.helpers import assert_close, f32
from tests.references import conv_ref

IN, OUT = "winograd_input_cpu_planes", "winograd_output_cpu_planes"


def v64(x: np.ndarray, pad_y: int, pad_x: int, ty: int, tx: int) -> np.ndarray:
    """(36, N·ty·tx, C) float64: Bᵀ d B of every 6×6 tile, tile t = (b·ty + i)·tx + j at rows 4i − pad_y ..."""
    n, c, h, w = x.shape
    p = np.zeros((n, c, ty * 4 + 2, tx * 4 + 2))
    hh, ww = min(h, p.shape[2] - pad_y), min(w, p.shape[3] - pad_x)
    p[:, :, pad_y:pad_y + hh, pad_x:pad_x + ww] = x[:, :, :hh, :ww]
    v = np.empty((36, n, ty, tx, c))
    for i in range(ty):
        for j in range(tx):
            d = p[:, :, 4 * i:4 * i + 6, 4 * j:4 * j + 6]
            v[:, :, i, j, :] = np.einsum("ak,nckl,bl->abnc", BT, d, BT).reshape(36, n, c)
    return v.reshape(36, n * ty * tx, c)


def y64(m: np.ndarray, n: int, oh: int, ow: int, ty: int, tx: int, bias: np.ndarray | None) -> np.ndarray:
    """(N, OC, oh, ow) float64: Aᵀ M A per tile, plus the bias, cut to the output."""
    oc = m.shape[2]
    mm = m.astype(np.float64).reshape(6, 6, n, ty, tx, oc)
    y = np.einsum("ik,klntuo,jl->notiuj", AT, mm, AT).reshape(n, oc, ty * 4, tx * 4)[:, :, :oh, :ow]
    return y if bias is None else y + bias.reshape(1, oc, 1, 1)


@pytest.mark.parametrize("n,c,h,w,pad,in_pad", [
    (1, 16, 8, 8, 1, Padding()),
    (2, 24, 9, 7, 1, Padding((0, 0, 1, 2), (1, 0, 2, 1))),   # padded input (NaN there: never read)
    (1, 5, 6, 11, 0, Padding()),                              # valid: the last tiles stick out
    (1, 7, 5, 5, 2, Padding((0, 1, 0, 0), (0, 2, 0, 0))),     # pads of 2, feature padding
])
def test_input_transform(cpu_engine, rng, n, c, h, w, pad, in_pad):
    x = f32(rng.standard_normal((n, c, h, w)))
    ty, tx = tiles(h + 2 * pad - 2), tiles(w + 2 * pad - 2)
    lin = Layout(DataType.f32, Format.bfyx, x.shape, in_pad)
    lout = Layout(DataType.f32, Format.bfyx, (1, 36 * c, n * ty * tx, 1))
    got, chosen = run_kernel(cpu_engine, "winograd_input", [lin], lout,
                             dict(pad_y=pad, pad_x=pad, tiles_y=ty, tiles_x=tx, channel_major=True), [x], IN)
    assert chosen == IN
    ref = v64(x, pad, pad, ty, tx).transpose(0, 2, 1).reshape(lout.shape)  # channel ξν·C + c, row t
    assert_close(got, ref, rtol=1e-5, atol=1e-5 * float(np.abs(ref).max()))


@pytest.mark.parametrize("n,oc,oh,ow,bias,out_pad,fused,band_tiles", [
    (1, 16, 8, 8, True, Padding(), "", 256),
    (2, 20, 7, 9, True, Padding((0, 0, 1, 1), (0, 0, 2, 1)), "residual", 256),  # padded output, residual + clamp
    (1, 3, 6, 5, False, Padding(), "residual", 256),
    (2, 6, 7, 6, True, Padding(), "clamp", 256),  # no operand, contiguous planes: the chain once per band
    (1, 5, 9, 6, True, Padding((0, 0, 0, 1), (0, 0, 0, 1)), "clamp", 256),  # padded rows: the chain per row
    (2, 4, 13, 10, True, Padding(), "clamp", 5),  # bands of 2 tile rows (of 3 tiles), the last one short
    (1, 3, 10, 9, True, Padding((0, 0, 1, 0), (0, 0, 0, 2)), "residual", 1),  # a band per tile row
])
def test_output_transform(cpu_engine, rng, monkeypatch, n, oc, oh, ow, bias, out_pad, fused, band_tiles):
    from kernel_selector.kernels.winograd import winograd_kernel_cpu_planes as planes

    monkeypatch.setattr(planes, "BAND_TILES", band_tiles)
    ty, tx = tiles(oh), tiles(ow)
    m = f32(rng.standard_normal((36, n * ty * tx, oc)))
    mc = np.ascontiguousarray(m.transpose(0, 2, 1)).reshape(1, 36 * oc, n * ty * tx, 1)  # channel-major M
    b = f32(rng.standard_normal(oc))
    r = f32(rng.standard_normal((n, oc, oh, ow)))
    inputs = [Layout(DataType.f32, Format.bfyx, mc.shape)] + ([Layout(DataType.f32, Format.bfyx, (oc,))] if bias
                                                            else [])
    lout = Layout(DataType.f32, Format.bfyx, (n, oc, oh, ow), out_pad)
    clamp = FusedOp("activation", FusedActivationAttrs("clamp", a=-0.5, b=1.5))
    ops = {"": None, "clamp": [clamp], "residual": [FusedOp("eltwise", FusedEltwiseAttrs("sum")), clamp]}[fused]
    rlay = Layout(DataType.f32, Format.bfyx, r.shape, Padding((0, 0, 0, 1), (0, 0, 1, 0)))
    got, chosen = run_kernel(cpu_engine, "winograd_output", inputs, lout,
                             dict(out_y=oh, out_x=ow, tiles_y=ty, tiles_x=tx, channel_major=True),
                             [mc] + ([b] if bias else []), OUT,
                             ops, [(rlay, r)] if fused == "residual" else None)
    assert chosen == OUT
    ref = y64(m, n, oh, ow, ty, tx, b if bias else None)
    if fused:
        ref = np.clip(ref + (r if fused == "residual" else 0), -0.5, 1.5)
    assert_close(got, ref, rtol=1e-5, atol=1e-5 * float(np.abs(ref).max()))


def _block(rng, c, hw, oc):
    """x → conv 3×3 (bias) → + r → ReLU, and its float64 reference."""
    x = f32(rng.standard_normal((1, c, hw, hw)))
    r = f32(rng.standard_normal((1, oc, hw, hw)))
    wt = f32(rng.standard_normal((oc, c, 3, 3)) / np.sqrt(9 * c))
    b = f32(rng.standard_normal(oc))
    topo = cl.Topology(
        cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)),
        cl.InputLayout("r", cl.Layout(cl.DataType.f32, cl.Format.bfyx, r.shape)),
        cl.Data("w", wt), cl.Data("b", b), cl.Convolution("conv", "x", weights="w", bias="b", pad=(1, 1)),
        cl.Eltwise("sum", ["conv", "r"], mode="sum"), cl.Activation("y", "sum", "relu"))
    ref = np.maximum(conv_ref(x, wt, b, (1, 1), (1, 1), (1, 1), (1, 1), 1) + r, 0)
    return topo, {"x": x, "r": r}, ref


@pytest.fixture
def narrow_lanes(monkeypatch):
    """The pass's rule for hosts whose numba kernels use 8-float vectors (AVX2), whatever this host has."""
    monkeypatch.setattr(wc, "cpu_lanes", lambda: 8)


def test_the_pass_rewrites_a_resnet_sized_convolution_on_the_cpu_engine(cpu_engine, rng, narrow_lanes):
    topo, feeds, ref = _block(rng, 32, 28, 32)  # 32·32 / (32 + 32) = 16 MACs per transformed value: too few
    topo2, feeds2, ref2 = _block(rng, 64, 28, 48)  # 27.4: too few as well
    topo3, feeds3, ref3 = _block(rng, 96, 20, 64)  # 38.4: Winograd
    for t in (topo, topo2):
        assert "winograd_output" not in {n.kind for n in cl.Program(cpu_engine, t).order}
    small = cl.Network(cl.Program(cpu_engine, topo))
    net = cl.Network(cl.Program(cpu_engine, topo3))
    impls = {n.id: n.impl.kernel_name for n in net.program.order if n.impl}
    assert impls == {"conv__winograd_v": IN, "conv__winograd_m": "convolution_cpu_packed", "conv": OUT}
    prod = net.program.node("conv__winograd_m")
    assert prod.primitive.groups == 36 and prod.dependencies[1].layout().format == Format.os_iyx_osv16
    out = next(n for n in net.program.order if n.kind == "winograd_output")
    assert [op.kind for op in out.fused_ops] == ["eltwise", "activation"]  # the residual and the ReLU fused
    for nt, f, rf in ((small, feeds, ref), (net, feeds3, ref3)):
        nt.poison()
        assert_close(nt.run(f)["y"], rf, rtol=1e-4, atol=1e-4 * float(np.abs(rf).max()))


def test_wide_vector_hosts_need_more_products_per_transformed_value(cpu_engine, rng, monkeypatch):
    """With 16-float vectors (AVX-512) the direct kernel is fast enough that the bar rises, the more the smaller
    the map: the table's thresholds by tiles, the AVX2 constant below 16 lanes, and the pass follows the lanes (the
    96 → 64 layer at 20×20, 25 tiles, 38.4 products per value, is rewritten at 8 lanes and not at 16)."""
    assert [wc.min_macs_per_value_plain(t, 16) for t in (16, 35, 36, 49, 143, 144, 196, 575, 576, 3136)] == \
        [192, 192, 128, 128, 128, 96, 96, 96, 64, 64]
    assert {wc.min_macs_per_value_plain(t, 8) for t in (16, 196, 3136)} == {wc.MIN_MACS_PER_VALUE_PLAIN}
    topo, _, _ = _block(rng, 96, 20, 64)
    kinds = {}
    for lanes in (8, 16):
        monkeypatch.setattr(wc, "cpu_lanes", lambda lanes=lanes: lanes)
        kinds[lanes] = {n.kind for n in cl.Program(cpu_engine, topo).order}
    assert "winograd_output" in kinds[8] and "winograd_output" not in kinds[16]


def test_full_rate_hosts_keep_small_maps_direct(cpu_engine, rng, monkeypatch):
    """With full-rate 512-bit FMAs (Zen 5) a map needs MIN_IMAGE_TILES_FULL_RATE 4×4 tiles per image: a 256 → 256
    layer (128 products per transformed value) at 28×28 (49 tiles) is rewritten either way, at 24×24 (36 tiles)
    only on a half-rate host."""
    monkeypatch.setattr(wc, "cpu_lanes", lambda: 16)
    kinds = {}
    for full in (False, True):
        monkeypatch.setattr(wc, "cpu_full_rate", lambda full=full: full)
        for hw in (28, 24):
            topo, _, _ = _block(rng, 256, hw, 256)
            kinds[full, hw] = "winograd_output" in {n.kind for n in cl.Program(cpu_engine, topo).order}
    assert kinds == {(False, 28): True, (False, 24): True, (True, 28): True, (True, 24): False}


@pytest.mark.parametrize("forced", [None, "ref"])
def test_channel_major_primitives_from_a_topology(cpu_engine, rng, forced):
    """The channel-major chain built by hand (transforms, a 1×1 convolution with 36 groups): the planes kernels,
    and the numpy reference kernels forced, against the direct convolution; a bad flag names the primitive."""
    from cldnn_py.ops.winograd import winograd_weights_grouped

    n, c, h, w, oc = 2, 8, 9, 6, 5
    x = f32(rng.standard_normal((n, c, h, w)))
    wt = f32(rng.standard_normal((oc, c, 3, 3)))
    b = f32(rng.standard_normal(oc))
    ty, tx = tiles(h), tiles(w)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)),
                       cl.WinogradInput("v", "x", pad_y=1, pad_x=1, tiles_y=ty, tiles_x=tx, channel_major=True),
                       cl.Data("u", winograd_weights_grouped(wt)), cl.Data("b", b),
                       cl.Convolution("m", "v", weights="u", groups=36),
                       cl.WinogradOutput("y", "m", bias="b", out_y=h, out_x=w, tiles_y=ty, tiles_x=tx,
                                         channel_major=True))
    opts = cl.BuildOptions(force_implementations={"v": "winograd_input_cpu_ref", "y": "winograd_output_cpu_ref"}) \
        if forced else cl.BuildOptions()
    net = cl.Network(cl.Program(cpu_engine, topo, opts))
    assert net.program.node("y").impl.kernel_name == ("winograd_output_cpu_ref" if forced else OUT)
    net.poison()
    ref = conv_ref(x, wt, b, (1, 1), (1, 1), (1, 1), (1, 1), 1)
    assert_close(net.run({"x": x})["y"], ref, rtol=1e-4, atol=1e-4 * float(np.abs(ref).max()))
    with pytest.raises(cl.TopologyError, match="winograd_input 'v2': channel_major must be a bool, got 1"):
        cl.WinogradInput("v2", "x", channel_major=1)
