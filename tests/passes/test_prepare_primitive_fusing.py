"""prepare_primitive_fusing: BatchNorm folded into convolution weights, residual sum and activations fused into
the convolution kernel. Each case runs with optimize_data True and False: same outputs, fewer kernels."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.passes.graph_initializations import GraphInitializations
from cldnn_py.passes.mark_nodes import MarkNodes
from cldnn_py.passes.prepare_primitive_fusing import PreparePrimitiveFusing
from cldnn_py.passes.trim_to_outputs import TrimToOutputs
from tests.passes.graphs import builder, graph


def _block(rng, c=8):
    """x -> conv1 -> bn1 -> relu1 -> conv2 -> bn2 ; sum(bn2, x) -> relu_out (a ResNet basic block)."""
    f = np.float32
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, c, 6, 6))))
    for i in (1, 2):
        t.add(cl.Data(f"w{i}", (rng.standard_normal((c, c, 3, 3)) * 0.2).astype(f)),
              cl.Data(f"mean{i}", rng.standard_normal(c).astype(f) * 0.1),
              cl.Data(f"var{i}", rng.uniform(0.5, 1.5, c).astype(f)),
              cl.Data(f"scale{i}", rng.uniform(0.5, 1.0, c).astype(f)),
              cl.Data(f"shift{i}", rng.standard_normal(c).astype(f) * 0.1))
    t.add(cl.Convolution("conv1", "x", weights="w1", pad=(1, 1)),
          cl.BatchNorm("bn1", "conv1", mean="mean1", variance="var1", scale="scale1", shift="shift1"),
          cl.Activation("relu1", "bn1", "relu"),
          cl.Convolution("conv2", "relu1", weights="w2", pad=(1, 1)),
          cl.BatchNorm("bn2", "conv2", mean="mean2", variance="var2", scale="scale2", shift="shift2"),
          cl.Eltwise("sum", ["x", "bn2"], mode="sum"),
          cl.Activation("relu_out", "sum", "relu"))
    return t


def test_graph_after_fusing(graph_engine, rng):
    b = builder(graph_engine, _block(rng))
    for p in (GraphInitializations(), TrimToOutputs(), MarkNodes(), PreparePrimitiveFusing()):
        p.run(b)
    ids, edges = graph(b)
    assert ids == ["x", "conv1__w_bn1", "conv1__b_bn1", "conv1", "conv2__w_bn2", "conv2__b_bn2", "conv2"]
    assert ("x", "conv2") in edges and ("conv1", "conv2") in edges  # the shortcut is read by conv2's epilogue
    assert [op.fused_id for op in b.nodes["conv1"].fused_ops] == ["relu1"]
    assert [(op.kind, op.fused_id) for op in b.nodes["conv2"].fused_ops] == [("eltwise", "sum"),
                                                                           ("activation", "relu_out")]
    assert b.outputs == ["relu_out"] and b.resolve("relu_out") == "conv2" and b.resolve("bn1") == "conv1"


def test_fused_and_unfused_agree_with_fewer_kernels(engine, rng):
    topo = _block(rng)
    x = rng.standard_normal((1, 8, 6, 6)).astype(np.float32)
    results, executed = {}, {}
    for opt in (False, True):
        net = cl.Network(cl.Program(engine, topo, cl.BuildOptions(optimize_data=opt)))
        net.poison()
        results[opt] = net.run({"x": x})["relu_out"]
        info = net.get_profiling_info()
        executed[opt] = [p.id for p in info if p.status == "EXECUTED"]
        if opt:
            fused = {p.id: p.kernel for p in info if p.status == "FUSED"}
            assert fused == {"bn1": "fused into conv1", "relu1": "fused into conv1", "bn2": "fused into conv2",
                             "sum": "fused into conv2", "relu_out": "fused into conv2"}
    assert executed[False] == ["conv1", "bn1", "relu1", "conv2", "bn2", "sum", "relu_out"]
    # with a blocked fast convolution kernel available, the network input is reordered once to b_fs_yx_fsv16
    assert [k for k in executed[True] if k != "conv1__input_b_fs_yx_fsv16"] == ["conv1", "conv2"]
    np.testing.assert_allclose(results[True], results[False], rtol=1e-5, atol=1e-5)


def test_no_fusion_when_the_producer_has_other_users(graph_engine, rng):
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 4, 5, 5))),
                    cl.Data("w", rng.standard_normal((4, 4, 1, 1)).astype(np.float32)),
                    cl.Convolution("conv", "x", weights="w"),
                    cl.Activation("relu", "conv", "relu"), cl.Activation("tanh", "conv", "tanh"))
    b = builder(graph_engine, t)
    for p in (GraphInitializations(), TrimToOutputs(), MarkNodes(), PreparePrimitiveFusing()):
        p.run(b)
    assert set(b.nodes) == {"x", "w", "conv", "relu", "tanh"} and not b.nodes["conv"].fused_ops


def test_fully_connected_with_fused_activation(engine, rng):
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 6))),
                    cl.Data("w", rng.standard_normal((5, 6)).astype(np.float32)),
                    cl.Data("bias", rng.standard_normal(5).astype(np.float32)),
                    cl.FullyConnected("fc", "x", weights="w", bias="bias"),
                    cl.Activation("act", "fc", "relu_negative_slope", a=0.1))
    x = rng.standard_normal((2, 6)).astype(np.float32)
    net = cl.Network(cl.Program(engine, t))
    y = x.astype(np.float64) @ t["w"].array.T + t["bias"].array
    np.testing.assert_allclose(net.run({"x": x})["act"], np.where(y > 0, y, 0.1 * y), rtol=1e-5, atol=1e-6)
    assert [p.id for p in net.get_profiling_info() if p.status == "EXECUTED"] == ["fc"]


def test_activation_fused_into_broadcasting_eltwise(engine, rng):
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 3, 4, 4))),
                    cl.Data("s", rng.standard_normal((1, 3, 1, 1)).astype(np.float32)),
                    cl.Eltwise("mul", ["x", "s"], mode="prod"), cl.Activation("act", "mul", "tanh"))
    x = rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
    net = cl.Network(cl.Program(engine, t))
    np.testing.assert_allclose(net.run({"x": x})["act"], np.tanh(x * t["s"].array), rtol=1e-5, atol=1e-6)
    assert [p.id for p in net.get_profiling_info() if p.status == "EXECUTED"] == ["mul"]


def test_activation_fused_into_pooling(engine, rng):
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 3, 6, 6))),
                    cl.Pooling("pool", "x", mode="average", kernel=(2, 2), stride=(2, 2)),
                    cl.Activation("act", "pool", "hard_swish"))
    x = rng.standard_normal((1, 3, 6, 6)).astype(np.float32)
    net = cl.Network(cl.Program(engine, t))
    p = x.reshape(1, 3, 3, 2, 3, 2).mean(axis=(3, 5))
    np.testing.assert_allclose(net.run({"x": x})["act"], p * np.clip(p + 3, 0, 6) / 6, rtol=1e-5, atol=1e-6)
    assert [p.id for p in net.get_profiling_info() if p.status == "EXECUTED"] == ["pool"]


def test_caffe_batch_norm_scale_chain_becomes_one_kernel(engine, rng):
    """BatchNorm -> Mul(per-channel γ) -> Add(per-channel β) -> Relu (DenseNet, Inception-v2) runs as one kernel."""
    f = np.float32
    c = 5
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, c, 3, 3))),
                    cl.Data("m", rng.standard_normal(c).astype(f)), cl.Data("v", rng.uniform(0.5, 2, c).astype(f)),
                    cl.Data("g", rng.uniform(0.5, 1.5, (c, 1, 1)).astype(f)),
                    cl.Data("beta", rng.standard_normal((1, c, 1, 1)).astype(f)),
                    cl.BatchNorm("bn", "x", mean="m", variance="v", epsilon=1e-3),
                    cl.Eltwise("mul", ["bn", "g"], mode="prod"), cl.Eltwise("add", ["beta", "mul"], mode="sum"),
                    cl.Activation("relu", "add", "relu"))
    x = rng.standard_normal((2, c, 3, 3)).astype(f)
    nets = {opt: cl.Network(cl.Program(engine, t, cl.BuildOptions(optimize_data=opt))) for opt in (True, False)}
    got = {opt: n.run({"x": x})["relu"] for opt, n in nets.items()}
    a = lambda k: t[k].array.astype(np.float64)  # noqa: E731
    ref = (x - a("m")[:, None, None]) / np.sqrt(a("v")[:, None, None] + 1e-3) * a("g") + a("beta")
    np.testing.assert_allclose(got[True], np.maximum(ref, 0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[True], got[False], rtol=1e-5, atol=1e-5)
    assert [p.id for p in nets[True].get_profiling_info() if p.status == "EXECUTED"] == ["bn"]
    assert len([p for p in nets[False].get_profiling_info() if p.status == "EXECUTED"]) == 4


def test_scale_and_per_channel_eltwise_fold_into_convolution(engine, rng):
    f = np.float32
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 3, 6, 6))),
                    cl.Data("w", rng.standard_normal((4, 3, 3, 3)).astype(f)),
                    cl.Data("b", rng.standard_normal(4).astype(f)),
                    cl.Data("s", rng.uniform(0.5, 2, (1, 4, 1, 1)).astype(f)),
                    cl.Data("t", rng.standard_normal((4, 1, 1)).astype(f)),
                    cl.Data("g", rng.uniform(0.5, 2, (4, 1, 1)).astype(f)),
                    cl.Convolution("conv", "x", weights="w", bias="b", pad=(1, 1)),
                    cl.Scale("scale", "conv", scale="s", bias="t"),
                    cl.Convolution("conv2", "scale", weights="w2", pad=(1, 1)),
                    cl.Data("w2", rng.standard_normal((4, 4, 1, 1)).astype(f)),
                    cl.Eltwise("mul", ["g", "conv2"], mode="prod"))
    x = rng.standard_normal((1, 3, 6, 6)).astype(f)
    nets = {opt: cl.Network(cl.Program(engine, t, cl.BuildOptions(optimize_data=opt))) for opt in (True, False)}
    got = {opt: n.run({"x": x})["mul"] for opt, n in nets.items()}
    np.testing.assert_allclose(got[True], got[False], rtol=1e-5, atol=1e-5)
    status = {p.id: p.status for p in nets[True].get_profiling_info()}
    assert status["scale"] == "FUSED" and status["mul"] == "FUSED"
    assert [k for k, v in status.items() if v == "EXECUTED" and not k.endswith("fsv16")] == ["conv", "conv2"]


def _fake_quant(t, name, src, scale, zp=128.0):
    """QuantizeLinear → DequantizeLinear to uint8 as the ONNX importer lowers it: four activations."""
    t.add(cl.Activation(f"{name}_s", src, "linear", a=1.0 / scale, b=zp),
          cl.Activation(f"{name}_r", f"{name}_s", "round"),
          cl.Activation(f"{name}_c", f"{name}_r", "clamp", a=0.0, b=255.0),
          cl.Activation(name, f"{name}_c", "linear", a=scale, b=-zp * scale))
    return name


def _fake_quant_ref(v, scale, zp=128.0):
    return (np.clip(np.rint(v / scale + zp), 0, 255) - zp) * scale


@pytest.mark.parametrize("tier", ["auto", "gpu"])
def test_sum_after_a_fused_chain_joins_it_with_its_own_activations(engine, rng, tier):
    """A QDQ residual block: conv_c → fake quant → sum(·, fake-quantized shortcut conv) → relu → fake quant. The
    second fuse_eltwise_sum pass puts the sum and the activations after it into conv_c's epilogue, in order; the
    result matches the float64 reference (every element within one output step, nearly all on the same step). On
    OpenCL also with the GPU tier's kernels (their scalar FUSED_OPS epilogue)."""
    if tier == "gpu" and engine.kind != "ocl":
        pytest.skip("the GPU tier is an OpenCL kernel tier")
    f = np.float32
    x = rng.standard_normal((1, 16, 7, 7)).astype(f)
    wc = (rng.standard_normal((16, 16, 3, 3)) * 0.1).astype(f)
    ws = (rng.standard_normal((16, 16, 1, 1)) * 0.3).astype(f)
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)), cl.Data("wc", wc),
                    cl.Data("ws", ws), cl.Convolution("conv_s", "x", weights="ws"),
                    cl.Convolution("conv_c", "x", weights="wc", pad=(1, 1)))
    s_q, c_q = _fake_quant(t, "s_q", "conv_s", 0.02), _fake_quant(t, "c_q", "conv_c", 0.015)
    t.add(cl.Eltwise("sum", [c_q, s_q], mode="sum"), cl.Activation("relu", "sum", "relu"))
    out = _fake_quant(t, "out", "relu", 0.025)
    net = cl.Network(cl.Program(engine, t, cl.BuildOptions(kernel_tier=tier)))
    net.poison()
    got = net.run({"x": x})[out].astype(np.float64)
    fused = {p.id: p.kernel for p in net.get_profiling_info() if p.status == "FUSED"}
    assert fused["sum"] == "fused into conv_c" and fused["relu"] == "fused into conv_c", fused
    assert fused["out"] == "fused into conv_c" and fused["c_q"] == "fused into conv_c", fused
    conv = conv_ref_f64(x, wc, 1) + 0.0
    short = conv_ref_f64(x, ws, 0)
    ref = _fake_quant_ref(np.maximum(_fake_quant_ref(conv, 0.015) + _fake_quant_ref(short, 0.02), 0), 0.025)
    steps = np.abs(np.rint(got / 0.025) - np.rint(ref / 0.025))
    assert steps.max() <= 1 and (steps == 0).mean() >= 0.99, (steps.max(), (steps == 0).mean())


def conv_ref_f64(x, w, pad):
    from tests.references import conv_ref

    return conv_ref(x.astype(np.float64), w.astype(np.float64), None, (1, 1), (1, 1), (pad, pad), (pad, pad), 1)


def _concat_net(rng, shared=False):
    """x → conv_a (1×1, 8) and conv_b (3×3, 8) → concat → fake quantization (four activations) [→ and conv_a also
    read by a tanh when ``shared``]."""
    f = np.float32
    x = rng.standard_normal((1, 6, 9, 8)).astype(f)
    wa, wb = (rng.standard_normal((8, 6, 1, 1)) * 0.4).astype(f), (rng.standard_normal((8, 6, 3, 3)) * 0.2).astype(f)
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)), cl.Data("wa", wa),
                    cl.Data("wb", wb), cl.Convolution("conv_a", "x", weights="wa"),
                    cl.Convolution("conv_b", "x", weights="wb", pad=(1, 1)),
                    cl.Concatenation("cat", ["conv_a", "conv_b"], axis=1))
    out = _fake_quant(t, "q", "cat", 0.02)
    outputs = [out]
    if shared:
        t.add(cl.Activation("side", "conv_a", "tanh"))
        outputs.append("side")
    t.outputs = outputs
    ref = np.concatenate([conv_ref_f64(x, wa, 0), conv_ref_f64(x, wb, 1)], axis=1)
    return t, x, _fake_quant_ref(ref, 0.02), np.tanh(conv_ref_f64(x, wa, 0))


@pytest.mark.parametrize("shared", [False, True], ids=["moved", "input-shared"])
def test_activation_after_concat_moves_into_its_inputs(engine, rng, shared):
    """fuse_activation_through_concat: the fake quantization after a concatenation runs in the epilogues of the two
    convolutions that feed it (no activation kernel), unless an input has another user; outputs equal the float64
    reference (within one quantization step, nearly all on the same)."""
    t, x, ref, side = _concat_net(rng, shared)
    net = cl.Network(cl.Program(engine, t))
    net.poison()
    got = net.run({"x": x})
    info = {p.id: p for p in net.get_profiling_info()}
    if shared:
        assert info["q_s"].status == "EXECUTED"
        np.testing.assert_allclose(got["side"], side, rtol=1e-4, atol=1e-4)
    else:
        assert all(info[i].status == "FUSED" for i in ("q_s", "q_r", "q_c", "q")), [info[i] for i in ("q_s", "q")]
        assert not [p for p in info.values() if p.status == "EXECUTED" and "activation" in p.kernel]
    q = got["q"].astype(np.float64) / 0.02
    steps = np.abs(np.rint(q) - np.rint(ref / 0.02))
    assert steps.max() <= 1 and (steps == 0).mean() >= 0.99
    assert np.abs(q - np.rint(q)).max() < 1e-3  # every element quantized, both inputs' parts


def _fake_quant_twice_read(rng):
    """conv read twice: by a fake quantization (linear 1/s → round → clamp → linear s, four activations) and by a
    sum with the quantized value."""
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 5, 6, 7))),
                    cl.Data("w", rng.standard_normal((6, 5, 3, 3)).astype(np.float32)),
                    cl.Convolution("conv", "x", weights="w", pad=(1, 1)),
                    cl.Activation("scaled", "conv", "linear", a=1 / 0.25, b=0.0),
                    cl.Activation("rounded", "scaled", "round"),
                    cl.Activation("clamped", "rounded", "clamp", a=-20.0, b=20.0),
                    cl.Activation("fq", "clamped", "linear", a=0.25, b=0.0),
                    cl.Eltwise("out", ["conv", "fq"], mode="sum"))
    return t


@pytest.mark.parametrize("tier", ["auto", "gpu"])
def test_a_chain_of_activations_is_one_kernel(engine, rng, tier):
    """Activations fuse into a producing activation: the fake quantization of a tensor read twice (the conv has two
    users, so nothing fuses into it) runs as one kernel, the other three applied as its fused ops (the OpenCL GPU
    tier: activation_gpu_wg; tests/ocl/test_activation.py: activation_ref with fused ops)."""
    if tier == "gpu" and engine.kind == "cpu":
        pytest.skip("the OpenCL GPU tier")
    t = _fake_quant_twice_read(rng)
    x = rng.standard_normal((1, 5, 6, 7)).astype(np.float32)
    net = cl.Network(cl.Program(engine, t, cl.BuildOptions(kernel_tier=tier)))
    if tier == "gpu":
        assert net.program.node("scaled").impl.kernel_name == "activation_gpu_wg"
    net.poison()
    y = net.run({"x": x})["out"]
    info = net.get_profiling_info()
    assert {p.id: p.kernel for p in info if p.status == "FUSED"} == {
        "rounded": "fused into scaled", "clamped": "fused into scaled", "fq": "fused into scaled"}
    c = np.zeros((1, 6, 6, 7))
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    w = t["w"].array.astype(np.float64)
    for i in range(3):
        for j in range(3):
            c += np.einsum("bchw,oc->bohw", xp[:, :, i:i + 6, j:j + 7], w[:, :, i, j])
    q = np.clip(np.rint(c.astype(np.float32) * np.float32(4.0)), -20, 20) * 0.25
    d = np.abs(y - (c + q))
    # a conv sum within float32 rounding of a half step may round the other way: one step (0.25) there, rarely
    assert np.all((d < 1e-4) | (np.abs(d - 0.25) < 1e-4)) and (d < 1e-4).mean() > 0.98
