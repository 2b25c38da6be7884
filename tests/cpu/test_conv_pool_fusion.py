"""A max pooling fused into the convolution before it (passes/fuse_pool_into_conv.py, cpu_conv_pool): the kernel on
NaN-poisoned buffers against the float64 references, the pass's rule in networks, and a saved program."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.cpu_engine import aligned_bytes
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import ConvolutionAttrs, FusedActivationAttrs, PoolingAttrs, PoolingMode
from cldnn_py.passes import fuse_pool_into_conv
from kernel_selector.kernels.convolution import cpu_conv_pool
from kernel_selector.params import FusedOp, Params
from kernel_selector.selector import candidates, selector
from tests.helpers import f32
from tests.references import conv_ref, pool_ref

KERNEL = "convolution_cpu_packed"

CASES = [  # x shape, oc, conv kernel, stride, pad, pooling (kernel, stride, pad, pad_end, ceil)
    ((2, 3, 35, 33), 40, (3, 3), (2, 2), (0, 0), ((3, 3), (2, 2), (0, 0), (0, 0), False)),  # SqueezeNet's stem
    ((1, 3, 30, 30), 64, (7, 7), (2, 2), (3, 3), ((3, 3), (2, 2), (1, 1), (1, 1), False)),  # ResNet's stem
    ((1, 5, 20, 23), 24, (3, 3), (1, 1), (1, 1), ((2, 2), (2, 2), (0, 0), (0, 0), True)),   # 2x2, ceil: odd tails
    ((2, 8, 17, 40), 33, (1, 1), (2, 2), (0, 0), ((3, 2), (1, 2), (1, 0), (1, 1), False)),  # strided 1x1, odd window
    ((1, 3, 80, 80), 24, (3, 3), (2, 2), (1, 1), ((3, 3), (2, 2), (1, 1), (1, 1), False)),  # GEMM form unfused
]
IDS = ["3x3s2-pool3s2", "7x7s2-pool3s2p1", "3x3-pool2s2-ceil", "1x1s2-pool3x2", "24ch-grid"]


def _pool(x, win, mode=PoolingMode.max):
    k, s, pb, pe, ceil = win
    return pool_ref(x, mode, k, s, pb, pe, ceil)


NO_PAD = Padding()


def run_fused(x, w, b, stride, pad, win, act, opad=NO_PAD, mode=PoolingMode.max):
    """The packed kernel with ``act`` (an activation name or None) and the pooling ``win`` of ``mode`` fused, on
    NaN-poisoned buffers; returns the logical output (float64)."""
    k, s, pb, pe, ceil = win
    pa = PoolingAttrs(mode=mode, kernel=k, stride=s, pad=pb, pad_end=pe, ceil_mode=ceil)
    oh = (x.shape[2] + 2 * pad[0] - w.shape[2]) // stride[0] + 1
    ow = (x.shape[3] + 2 * pad[1] - w.shape[3]) // stride[1] + 1
    poh, pow_ = pa.output_hw(oh, ow)
    lays = [Layout(DataType.f32, Format.bfyx, x.shape), Layout(DataType.f32, Format.os_iyx_osv16, w.shape),
            Layout(DataType.f32, Format.bfyx, b.shape)]
    out = Layout(DataType.f32, Format.bfyx, (x.shape[0], w.shape[0], poh, pow_), opad)
    ops = ([FusedOp("activation", FusedActivationAttrs(func=act))] if act else []) + [FusedOp("pooling", pa)]
    params = Params("convolution", "cpu", lays, out, ConvolutionAttrs(stride=stride, pad=pad, pad_end=pad), ops)
    verdicts = {v.kernel: v for v in selector.explain(params)}
    assert verdicts[KERNEL].reason is None, str(verdicts[KERNEL])
    assert all(v.reason is not None for v in verdicts.values() if v.kernel != KERNEL), "only the packed kernel fuses"
    kd = next(c for c in candidates("convolution") if c.name == KERNEL).kernel_data(params)
    bufs = []
    for lay, arr in zip(lays, [x, w, b]):
        buf = aligned_bytes(lay.bytes)
        buf[:] = lay.to_physical(arr).view(np.uint8)
        bufs.append(buf)
    obuf = aligned_bytes(out.bytes)
    obuf.view(np.float32)[:] = np.nan
    kd.kernels[0].fn(*bufs, obuf)
    flat = obuf.view(np.float32)
    if not out.padding.is_zero:
        mask = out.to_physical(np.ones(out.shape, np.float32)) == 0
        assert np.isnan(flat[mask]).all(), "the kernel wrote into the output's padding"
    return out.from_physical(flat).astype(np.float64)


@pytest.mark.parametrize("mode", list(PoolingMode), ids=[m.value for m in PoolingMode])
@pytest.mark.parametrize("act", ["relu", "tanh", None])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fused_pooling_matches_the_reference(rng, case, act, mode):
    """Convolution, its activation (relu in registers, tanh after the tiles, none) and the max / average (pads
    counted or not) pooling in one kernel: equal to the float64 convolution, activation and pooling, every element
    written."""
    shape, oc, k, stride, pad, win = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1]) + k) * 0.3)
    b = f32(rng.standard_normal(oc))
    y = conv_ref(x, w, b, stride, (1, 1), pad, pad, 1)
    y = {"relu": np.maximum(y, 0), "tanh": np.tanh(y), None: y}[act]
    got = run_fused(x, w, b, stride, pad, win, act, mode=mode)
    want = _pool(y, win, mode)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5 * np.abs(want).max())


def test_small_bands_carry_rows_over(rng, monkeypatch):
    """Bands of a few rows (BAND_BYTES tiny: the window's rows only): rows shared with the band before are moved,
    not recomputed, and the activation runs once on each (tanh twice would differ)."""
    monkeypatch.setattr(cpu_conv_pool, "BAND_BYTES", 1)
    shape, oc, k, stride, pad, win = CASES[1]
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1]) + k) * 0.3)
    b = f32(rng.standard_normal(oc))
    want = _pool(np.tanh(conv_ref(x, w, b, stride, (1, 1), pad, pad, 1)), win)
    got = run_fused(x, w, b, stride, pad, win, "tanh")
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


def test_padded_output_keeps_its_halo(rng):
    """A pooled output padded for a k×k consumer (prepare_padding): the interior written, the halo left alone."""
    shape, oc, k, stride, pad, win = CASES[0]
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1]) + k) * 0.3)
    b = f32(rng.standard_normal(oc))
    want = _pool(np.maximum(conv_ref(x, w, b, stride, (1, 1), pad, pad, 1), 0), win)
    got = run_fused(x, w, b, stride, pad, win, "relu", Padding((0, 0, 1, 1), (0, 0, 1, 1)))
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5 * np.abs(want).max())


def test_the_kernel_refuses_what_it_cannot_fuse():
    """Global poolings, dilated windows and convolution rows narrower than FUSED_POOL_MIN_WIDTH are refused with a
    reason; max and average windows are taken."""
    assert cpu_conv_pool.fused_pool_reason(PoolingAttrs(mode=PoolingMode.average, kernel=(2, 2))) is None
    assert "global" in cpu_conv_pool.fused_pool_reason(PoolingAttrs(global_pooling=True))
    assert "dilation" in cpu_conv_pool.fused_pool_reason(PoolingAttrs(kernel=(2, 2), dilation=(2, 2)))
    assert cpu_conv_pool.fused_pool_reason(PoolingAttrs(kernel=(3, 3), stride=(2, 2))) is None
    narrow = Params("convolution", "cpu", [Layout(DataType.f32, Format.bfyx, (1, 8, 13, 13)),
                                           Layout(DataType.f32, Format.os_iyx_osv16, (32, 8, 1, 1))],
                    Layout(DataType.f32, Format.bfyx, (1, 32, 6, 6)), ConvolutionAttrs(),
                    [FusedOp("pooling", PoolingAttrs(kernel=(3, 3), stride=(2, 2)))])
    why = {v.kernel: v.reason for v in selector.explain(narrow)}[KERNEL]
    assert why is not None and "rows of 13 pixels" in why


def _model(tmp_path, pool="MaxPool", extra_user=False, relu=True):
    """conv 3x3 stride 2 → (relu) → pooling 3x3 stride 2 (pad 1), seeded weights; ``extra_user``: the convolution's
    output also a graph output."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(7)
    w = numpy_helper.from_array(f32(rng.standard_normal((32, 3, 3, 3)) * 0.3), "w")
    b = numpy_helper.from_array(f32(rng.standard_normal(32)), "b")
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4)]
    src = "c"
    if relu:
        nodes.append(helper.make_node("Relu", ["c"], ["r"]))
        src = "r"
    kw = {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1] * 4}
    nodes.append(helper.make_node(pool, [src], ["y"], **kw))
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 32, 10, 10])]
    if extra_user:
        outs.append(helper.make_tensor_value_info(src, TensorProto.FLOAT, [2, 32, 20, 20]))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 40, 40])], outs,
                          [w, b])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    path = str(tmp_path / f"{pool}_{extra_user}_{relu}.onnx")
    onnx.save(m, path)
    return path, onnx.numpy_helper.to_array(w), onnx.numpy_helper.to_array(b)


def _reference(x, w, b, relu, pool):
    y = conv_ref(x, w, b, (2, 2), (1, 1), (1, 1), (1, 1), 1)
    y = np.maximum(y, 0) if relu else y
    mode = cl.PoolingMode.max if pool == "MaxPool" else cl.PoolingMode.average_no_padding
    return pool_ref(y, mode, (3, 3), (2, 2), (1, 1), (1, 1))


@pytest.mark.parametrize("pool, extra_user, relu, fused", [
    ("MaxPool", False, True, True), ("MaxPool", False, False, True), ("MaxPool", True, True, False),
    ("AveragePool", False, True, True), ("AveragePool", True, False, False)])
def test_the_pass_fuses_where_the_rule_allows(rng, tmp_path, monkeypatch, pool, extra_user, relu, fused):
    """A max pooling whose convolution has no other user is fused (no pooling node left, its id resolves to the
    convolution), an average one too; one whose convolution is also an output stays a kernel of its own. The
    network's results equal the float64 reference either way."""
    monkeypatch.setattr(fuse_pool_into_conv, "MIN_BYTES", 0)
    path, w, b = _model(tmp_path, pool, extra_user, relu)
    net = cl.Network(cl.Program(cl.Engine("cpu"), cl.load_onnx(path)))
    kinds = [n.kind for n in net.program.nodes.values()]
    assert ("pooling" not in kinds) == fused
    x = f32(rng.standard_normal((2, 3, 40, 40)))
    out = net.run({"x": x})
    got = np.asarray(out["y"])
    np.testing.assert_allclose(got, _reference(x, w, b, relu, pool), rtol=2e-5, atol=2e-5)


def test_the_switch_turns_the_fusion_off(rng, tmp_path, monkeypatch):
    """A convolution output below MIN_BYTES (this one's is 100 KB against 1 MB) keeps its pooling a node; so does
    any with fuse_pool_into_conv.ENABLED False; the results the same."""
    monkeypatch.setattr(fuse_pool_into_conv, "MIN_BYTES", 1 << 20)
    path, w, b = _model(tmp_path)
    net = cl.Network(cl.Program(cl.Engine("cpu"), cl.load_onnx(path)))
    assert "pooling" in [n.kind for n in net.program.nodes.values()]
    monkeypatch.setattr(fuse_pool_into_conv, "MIN_BYTES", 0)
    monkeypatch.setattr(fuse_pool_into_conv, "ENABLED", False)
    net = cl.Network(cl.Program(cl.Engine("cpu"), cl.load_onnx(path)))
    assert "pooling" in [n.kind for n in net.program.nodes.values()]
    x = f32(rng.standard_normal((2, 3, 40, 40)))
    np.testing.assert_allclose(np.asarray(net.run({"x": x})["y"]), _reference(x, w, b, True, "MaxPool"), rtol=2e-5,
                               atol=2e-5)


def test_a_saved_program_with_a_fused_pooling_loads(rng, tmp_path, monkeypatch):
    """Save and load a program whose convolution carries the pooling: the loaded layouts check out (the pooled
    shape from the fused op) and it computes the same."""
    monkeypatch.setattr(fuse_pool_into_conv, "MIN_BYTES", 0)
    path, w, b = _model(tmp_path)
    engine = cl.Engine("cpu")
    prog = cl.Program(engine, cl.load_onnx(path))
    file = tmp_path / "p.cldnn"
    prog.save(str(file))
    loaded = cl.Program.load(engine, str(file))
    x = f32(rng.standard_normal((2, 3, 40, 40)))
    got = np.asarray(cl.Network(loaded).run({"x": x})["y"])
    np.testing.assert_allclose(got, _reference(x, w, b, True, "MaxPool"), rtol=2e-5, atol=2e-5)


def _fire_model(tmp_path, third="conv"):
    """A SqueezeNet fire output: 1x1 and 3x3 convolutions (relu) of one input, concatenated, then max pooling 3x3
    stride 2 (ceil mode); ``third`` "relu": a third concatenated input that is no convolution (a relu of the input)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(11)
    ws = {"w1": f32(rng.standard_normal((16, 8, 1, 1)) * 0.3), "w3": f32(rng.standard_normal((24, 8, 3, 3)) * 0.3),
          "b1": f32(rng.standard_normal(16)), "b3": f32(rng.standard_normal(24))}
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["x", "w3", "b3"], ["c3"], kernel_shape=[3, 3], pads=[1] * 4),
             helper.make_node("Relu", ["c3"], ["r3"])]
    cat = ["r1", "r3"]
    if third == "relu":
        nodes.append(helper.make_node("Relu", ["x"], ["rx"]))
        cat.append("rx")
    nodes += [helper.make_node("Concat", cat, ["cat"], axis=1),
              helper.make_node("MaxPool", ["cat"], ["y"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8, 27, 27])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", "c", "h", "w"])],
                          [numpy_helper.from_array(v, k) for k, v in ws.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    path = str(tmp_path / f"fire_{third}.onnx")
    onnx.save(m, path)
    return path, ws


@pytest.mark.parametrize("third, fused", [("conv", True), ("relu", False)])
def test_pooling_goes_through_a_concatenation_of_convolutions(rng, tmp_path, monkeypatch, third, fused):
    """pool(concat(conv1x1, conv3x3)): each convolution pools its own channels (no pooling node left, the
    concatenation of the pooled slices); with a concatenated input that is no convolution, nothing fuses. Results
    equal the float64 reference either way."""
    monkeypatch.setattr(fuse_pool_into_conv, "MIN_BYTES", 0)
    path, ws = _fire_model(tmp_path, third)
    net = cl.Network(cl.Program(cl.Engine("cpu"), cl.load_onnx(path)))
    assert ("pooling" not in [n.kind for n in net.program.nodes.values()]) == fused
    x = f32(rng.standard_normal((2, 8, 27, 27)))
    parts = [np.maximum(conv_ref(x, ws["w1"], ws["b1"], (1, 1), (1, 1), (0, 0), (0, 0), 1), 0),
             np.maximum(conv_ref(x, ws["w3"], ws["b3"], (1, 1), (1, 1), (1, 1), (1, 1), 1), 0)]
    if third == "relu":
        parts.append(np.maximum(x.astype(np.float64), 0))
    want = pool_ref(np.concatenate(parts, axis=1), cl.PoolingMode.max, (3, 3), (2, 2), (0, 0), (0, 0), True)
    got = np.asarray(net.run({"x": x})["y"])
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)
