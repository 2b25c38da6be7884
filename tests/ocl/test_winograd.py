"""Winograd F(4×4, 3×3): the two transform primitives with a Gemm between them against the float64 direct
convolution (tests/references.py) on both engines (sizes that are not multiples of 4, pads 0-2, batch 2, with and
without bias, outputs poisoned); and the winograd_convolutions pass inside real builds: a 3×3 stride-1 convolution
with a fused ReLU and a fused residual sum runs as winograd_input → gemm → winograd_output on the OpenCL CPU device
and matches the direct convolution; the transforms' constructor and shape errors."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.ops.winograd import AT, BT, G, tiles, winograd_weights
from tests.helpers import assert_close, run_topology
from tests.references import conv_ref

F32, BFYX, FSV16 = cl.DataType.f32, cl.Format.bfyx, cl.Format.b_fs_yx_fsv16


def test_transform_matrices_compute_a_3x3_correlation(rng):
    d, g = rng.standard_normal((6, 6)), rng.standard_normal((3, 3))
    y = AT @ ((G @ g @ G.T) * (BT @ d @ BT.T)) @ AT.T
    ref = np.array([[np.sum(d[i:i + 3, j:j + 3] * g) for j in range(4)] for i in range(4)])
    np.testing.assert_allclose(y, ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("n,c,h,w,oc,pad,bias", [
    (1, 16, 8, 8, 16, 1, True),
    (2, 32, 9, 7, 32, 1, True),
    (1, 16, 6, 11, 48, 0, False),
    (1, 32, 5, 5, 16, 2, True),
])
def test_transforms_and_gemm_match_the_direct_convolution(engine, rng, n, c, h, w, oc, pad, bias):
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    wt = rng.standard_normal((oc, c, 3, 3)).astype(np.float32)
    b = rng.standard_normal(oc).astype(np.float32)
    oh, ow = h + 2 * pad - 2, w + 2 * pad - 2
    ty, tx = tiles(oh), tiles(ow)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(F32, BFYX, x.shape)), cl.Reorder("xb", "x", FSV16),
                       cl.WinogradInput("v", "xb", pad_y=pad, pad_x=pad, tiles_y=ty, tiles_x=tx),
                       cl.Data("u", winograd_weights(wt)), cl.Gemm("m", ["v", "u"]),
                       cl.WinogradOutput("y", "m", bias="b" if bias else None, out_y=oh, out_x=ow, tiles_y=ty,
                                         tiles_x=tx, format=FSV16))
    if bias:
        topo.add(cl.Data("b", b))
    # the transforms' kernels are CPU-tier kernels (one work-item work-groups): a GPU would refuse them (on the
    # H100 this test failed until it asked for the tier; a GPU builds Winograd only where the pass chooses it)
    got = run_topology(engine, topo, {"x": x}, cl.BuildOptions(kernel_tier="cpu"))["y"]
    ref = conv_ref(x, wt, b if bias else None, (1, 1), (1, 1), (pad, pad), (pad, pad), 1)
    assert_close(got, ref, rtol=1e-4, atol=1e-4 * float(np.abs(ref).max()))


def _conv_block(rng, n, c, hw, oc):
    """x → conv 3×3 (bias) → + residual r → ReLU: the residual block's tail that fuses into the convolution."""
    x = rng.standard_normal((n, c, hw, hw)).astype(np.float32)
    r = rng.standard_normal((n, oc, hw, hw)).astype(np.float32)
    wt = (rng.standard_normal((oc, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
    b = rng.standard_normal(oc).astype(np.float32)
    topo = cl.Topology(
        cl.InputLayout("x", cl.Layout(F32, BFYX, x.shape)), cl.InputLayout("r", cl.Layout(F32, BFYX, r.shape)),
        cl.Data("w", wt), cl.Data("b", b),
        cl.Convolution("conv", "x", weights="w", bias="b", pad=(1, 1)),
        cl.Eltwise("sum", ["conv", "r"], mode="sum"),
        cl.Activation("y", "sum", "relu"))
    ref = np.maximum(conv_ref(x, wt, b, (1, 1), (1, 1), (1, 1), (1, 1), 1) + r, 0)
    return topo, {"x": x, "r": r}, ref


def test_the_pass_rewrites_a_fused_residual_convolution(ocl_engine, rng):
    topo, feeds, ref = _conv_block(rng, 1, 32, 16, 64)
    net = cl.Network(cl.Program(ocl_engine, topo))
    kinds = {n.kind for n in net.program.order}
    if "winograd_output" not in kinds:
        pytest.skip("the Winograd kernels do not validate on this device (CPU-tier kernels)")
    assert "convolution" not in kinds and {"winograd_input", "gemm"} <= kinds
    out = next(n for n in net.program.order if n.kind == "winograd_output")
    assert [op.kind for op in out.fused_ops] == ["eltwise", "activation"]   # the sum and the ReLU in its epilogue
    net.poison()
    got = net.run(feeds)["y"]
    assert_close(got, ref, rtol=1e-4, atol=1e-4 * float(np.abs(ref).max()))


@pytest.mark.parametrize("why,change", [
    ("small map: 4 tiles", dict(hw=7)),
    ("channels not a multiple of 16", dict(c=24)),
    ("16 tiles x 32 channels: too few outputs per product", dict(oc=32)),
])
def test_the_pass_leaves_other_convolutions(ocl_engine, rng, why, change):
    args = dict(n=1, c=32, hw=16, oc=64) | change
    topo, feeds, ref = _conv_block(rng, **args)
    net = cl.Network(cl.Program(ocl_engine, topo))
    assert "winograd_output" not in {n.kind for n in net.program.order}, why
    assert_close(net.run(feeds)["y"], ref, rtol=1e-4, atol=1e-4 * float(np.abs(ref).max()))


def test_f16_programs_keep_the_direct_convolution(ocl_engine, rng):
    topo, feeds, _ = _conv_block(rng, 1, 32, 16, 64)
    prog = cl.Program(ocl_engine, topo, cl.BuildOptions(inference_precision="f16"))
    assert "winograd_output" not in {n.kind for n in prog.order}


def test_transform_errors_name_the_primitive():
    with pytest.raises(cl.TopologyError, match="winograd_input 'v': tiles_y must be an int >= 1, got 0"):
        cl.WinogradInput("v", "x", tiles_y=0)
    with pytest.raises(cl.TopologyError, match="winograd_output 'y': format must be a Format"):
        cl.WinogradOutput("y", "m", format="fsv16")
    m = cl.Layout(F32, BFYX, (36, 8, 16))
    with pytest.raises(cl.ShapeError, match=r"winograd_output 'y': input shape: expected \(36, N·3, OC\), got "
                                            r"\(36, 8, 16\)"):
        cl.WinogradOutput("y", "m", tiles_y=3, tiles_x=1, out_y=8, out_x=4).calc_output_layout([m])
    with pytest.raises(cl.ShapeError, match="tiles .4 pixels each. covering the output"):
        cl.WinogradOutput("y", "m", tiles_y=2, tiles_x=2, out_y=9, out_x=8).calc_output_layout([m])
    with pytest.raises(cl.DTypeError, match="winograd_input 'v': input data type: expected f32, got f16"):
        cl.WinogradInput("v", "x").calc_output_layout([cl.Layout(cl.DataType.f16, BFYX, (1, 16, 4, 4))])


def test_a_fake_quantized_convolution_runs_as_winograd_within_one_step(ocl_engine, rng):
    """A fused fake quantization (QDQ: scale, round, clamp, scale back) after the residual block: the pass rewrites
    it too, and the quantized outputs are within one step of the float64 reference, nearly all on the same one."""
    step = 0.05
    topo, feeds, ref = _conv_block(rng, 1, 32, 16, 64)
    topo.add(cl.Activation("q1", "y", "linear", a=1.0 / step), cl.Activation("q2", "q1", "round"),
             cl.Activation("q3", "q2", "clamp", a=0.0, b=255.0), cl.Activation("q", "q3", "linear", a=step))
    topo.outputs = ["q"]
    net = cl.Network(cl.Program(ocl_engine, topo))
    kinds = {n.kind for n in net.program.order}
    if "winograd_output" not in kinds:
        pytest.skip("the Winograd kernels do not validate on this device (CPU-tier kernels)")
    out = next(n for n in net.program.order if n.kind == "winograd_output")
    assert cl.ActivationFunc.round in {getattr(op.attrs, "func", None) for op in out.fused_ops}
    net.poison()
    got = net.run(feeds)["q"].astype(np.float64)
    expected = np.clip(np.rint(ref / step), 0, 255) * step
    steps = np.abs(np.rint(got / step) - np.rint(expected / step))
    assert steps.max() <= 1 and (steps == 0).mean() >= 0.995, (steps.max(), (steps == 0).mean())
