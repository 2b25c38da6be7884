"""Dynamic dimensions, shape-determining inputs and the model's own types through the public API
(``cl.Network(engine, cl.load_onnx(model)).run(feeds)``), each against onnxruntime on fresh seeded data."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import cldnn_py as cl
from cldnn_py.dynamic_network import DynamicNetwork

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _ort(m, feeds):
    s = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in s.get_outputs()], s.run(None, feeds)))


def _model(nodes, inputs, outputs, inits=(), opset=17):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=9)


def crnn_like(rng):
    """A CRNN-style recognizer with a dynamic batch and width: conv → relu → max pool over height → (b, w, c)
    sequence → MatMul classifier → softmax over classes. The sequence length is W/2 and only known at run."""
    w = numpy_helper.from_array((rng.standard_normal((8, 1, 3, 3)) * 0.3).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "b")
    fc = numpy_helper.from_array((rng.standard_normal((8, 5)) * 0.3).astype(np.float32), "fc")
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[8, 2], strides=[8, 2]),   # (b, 8, 1, W/2)
             helper.make_node("Squeeze", ["p", "ax2"], ["s"]),                                 # (b, 8, W/2)
             helper.make_node("Transpose", ["s"], ["t"], perm=[0, 2, 1]),                      # (b, W/2, 8)
             helper.make_node("MatMul", ["t", "fc"], ["logits"]),
             helper.make_node("Softmax", ["logits"], ["y"], axis=-1)]
    ax2 = numpy_helper.from_array(np.array([2], np.int64), "ax2")
    return _model(nodes, [helper.make_tensor_value_info("x", F, ["batch", 1, 8, "width"])],
                  [helper.make_tensor_value_info("y", F, ["batch", "seq", 5])], [w, b, fc, ax2])


def crnn_lstm(rng, hidden=6):
    """``crnn_like`` with its recurrent layer: conv features → (W/2, b, 8) sequence → bidirectional LSTM → (b, W/2,
    2·hidden) → MatMul classifier → softmax. The LSTM's unrolled length is W/2, known only at run."""
    def t(name, shape, scale=0.3):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)

    inits = [t("w", (8, 1, 3, 3)), t("b", (8,), 1.0), t("lw", (2, 4 * hidden, 8)), t("lr", (2, 4 * hidden, hidden)),
             t("lb", (2, 8 * hidden)), t("fc", (2 * hidden, 5)),
             numpy_helper.from_array(np.array([2], np.int64), "ax2"),
             numpy_helper.from_array(np.array([0, 0, 2 * hidden], np.int64), "bts")]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[8, 2], strides=[8, 2]),   # (b, 8, 1, W/2)
             helper.make_node("Squeeze", ["p", "ax2"], ["s"]),                                 # (b, 8, W/2)
             helper.make_node("Transpose", ["s"], ["t"], perm=[2, 0, 1]),                      # (W/2, b, 8)
             helper.make_node("LSTM", ["t", "lw", "lr", "lb"], ["ly"], hidden_size=hidden,
                              direction="bidirectional"),                                      # (W/2, 2, b, h)
             helper.make_node("Transpose", ["ly"], ["lt"], perm=[2, 0, 1, 3]),                 # (b, W/2, 2, h)
             helper.make_node("Reshape", ["lt", "bts"], ["feat"]),                             # (b, W/2, 2h)
             helper.make_node("MatMul", ["feat", "fc"], ["logits"]),
             helper.make_node("Softmax", ["logits"], ["y"], axis=-1)]
    return _model(nodes, [helper.make_tensor_value_info("x", F, ["batch", 1, 8, "width"])],
                  [helper.make_tensor_value_info("y", F, ["batch", "seq", 5])], inits)


def _run_shapes(net, m, shapes, rng):
    """Run ``net`` at each shape against onnxruntime; the five shapes hold four distinct signatures."""
    for shape in shapes:
        x = rng.standard_normal(shape).astype(np.float32)
        got = net.run({"x": x})["y"]
        ref = _ort(m, {"x": x})["y"]
        assert got.shape == ref.shape == (shape[0], shape[3] // 2, 5)
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
    assert net.builds == 4 and len(net.specializations) == 4  # the last shape was seen: no build


def test_crnn_with_bidirectional_lstm_at_three_widths_and_two_batches(engine, rng):
    """One Network of a CRNN-style recognizer with a bidirectional LSTM, dynamic batch and width: each new
    (batch, width) is a specialization whose LSTM runs W/2 steps (lstm_sequence); every run matches onnxruntime."""
    m = crnn_lstm(rng)
    net = cl.Network(engine, cl.load_onnx(m))
    assert isinstance(net, DynamicNetwork)
    shapes = [(1, 1, 8, 8), (2, 1, 8, 12), (1, 1, 8, 6), (2, 1, 8, 8), (1, 1, 8, 8)]
    _run_shapes(net, m, shapes, rng)

def test_dynamic_batch_and_width_in_one_network(engine, rng):
    m = crnn_like(rng)
    topo = cl.load_onnx(m)
    assert topo.is_dynamic and topo.input_signature["x"].dims == ("batch", 1, 8, "width")
    net = cl.Network(engine, topo)
    assert isinstance(net, DynamicNetwork) and net.input_ids == ["x"] and net.output_ids == ["y"]
    shapes = [(1, 1, 8, 32), (2, 1, 8, 48), (1, 1, 8, 20), (2, 1, 8, 32), (1, 1, 8, 32)]
    _run_shapes(net, m, shapes, rng)
    prof = net.get_profiling_info()
    assert any(e.status == "EXECUTED" for e in prof)
    assert net.memory_info()["specializations"] == 4


def test_specializations_are_bounded_least_recently_used_first(engine, rng):
    m = crnn_like(rng)
    net = cl.Network(engine, cl.load_onnx(m), cl.BuildOptions(max_specializations=2))
    for width in (16, 24, 16, 32):  # 16 is used again before 32 arrives: 24 is the one dropped
        net.run({"x": rng.standard_normal((1, 1, 8, width)).astype(np.float32)})
    assert [k[0][0][1][3] for k in net.specializations] == [16, 32]
    assert net.builds == 3
    with pytest.raises(ValueError, match="max_specializations"):
        cl.BuildOptions(max_specializations=0)


def test_reshape_builds_ahead_and_introspection_needs_a_specialization(engine, rng):
    net = cl.Network(engine, cl.load_onnx(crnn_like(rng)))
    with pytest.raises(cl.CldnnError, match="not been specialized"):
        net.get_profiling_info()
    net.reshape({"x": (1, 1, 8, 40)})
    assert net.builds == 1 and net.get_output_layout("y").shape == (1, 20, 5)
    net.run({"x": rng.standard_normal((1, 1, 8, 40)).astype(np.float32)})
    assert net.builds == 1


def test_bad_feeds_name_the_input_and_the_dimension(engine, rng):
    a = helper.make_tensor_value_info("a", F, ["n", 4])
    b = helper.make_tensor_value_info("b", F, ["n", 4])
    m = _model([helper.make_node("Add", ["a", "b"], ["y"])], [a, b], [helper.make_tensor_value_info("y", F, ["n", 4])])
    net = cl.Network(engine, cl.load_onnx(m))
    x3, x5 = (rng.standard_normal((k, 4)).astype(np.float32) for k in (3, 5))
    with pytest.raises(cl.ShapeError, match=r"input 'b': dimension 0 \('n'\): expected 3 .* got 5"):
        net.run({"a": x3, "b": x5})
    with pytest.raises(cl.ShapeError, match=r"input 'a': dimension 1: expected 4"):
        net.run({"a": rng.standard_normal((3, 5)).astype(np.float32), "b": x3})
    with pytest.raises(cl.ShapeError, match="rank: expected 2"):
        net.set_input_data("a", x3.reshape(-1))
    with pytest.raises(cl.DTypeError, match="expected float32, got float64"):
        net.set_input_data("a", x3.astype(np.float64))
    with pytest.raises(cl.TopologyError, match="did you mean 'a'"):
        net.set_input_data("aa", x3)
    got = net.run({"a": x3, "b": x3 * 2})["y"]  # after the errors a good run still works
    np.testing.assert_allclose(got, x3 * 3, rtol=1e-6)


def test_value_inputs_reshape_and_slice_by_fed_values(engine, rng):
    """Reshape's shape and Slice's starts/ends are graph inputs: one specialization per fed value."""
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"]),
             helper.make_node("Slice", ["r", "starts", "ends"], ["y"])]
    ins = [helper.make_tensor_value_info("x", F, [4, 6]), helper.make_tensor_value_info("shape", I64, [2]),
           helper.make_tensor_value_info("starts", I64, [1]), helper.make_tensor_value_info("ends", I64, [1])]
    m = _model(nodes, ins, [helper.make_tensor_value_info("y", F, ["r", "c"])])
    topo = cl.load_onnx(m)
    assert topo.is_dynamic and topo.value_inputs == ["shape"]  # the Slice inputs are found when needed
    net = cl.Network(engine, topo)
    x = rng.standard_normal((4, 6)).astype(np.float32)
    for shape, s, e in (((3, 8), 1, 3), ((8, 3), 2, 7), ((3, 8), 1, 3), ((3, 8), 0, 2)):
        feeds = {"x": x, "shape": np.array(shape, np.int64), "starts": np.array([s], np.int64),
                 "ends": np.array([e], np.int64)}
        np.testing.assert_array_equal(net.run(feeds)["y"], _ort(m, feeds)["y"])
    assert sorted(topo.value_inputs) == ["ends", "shape", "starts"] and net.builds == 3


def test_int64_bool_and_rank0_at_the_boundary(engine, rng):
    """Gather with int64 indices fed at run time, ArgMax's int64 result, a rank-0 Clip bound, a rank-0 result."""
    nodes = [helper.make_node("Gather", ["x", "idx"], ["g"], axis=1),
             helper.make_node("Clip", ["g", "lo"], ["c"]),
             helper.make_node("ArgMax", ["c"], ["am"], axis=1, keepdims=0),
             helper.make_node("ReduceMax", ["c"], ["mx"], keepdims=0)]
    ins = [helper.make_tensor_value_info("x", F, [3, 7]), helper.make_tensor_value_info("idx", I64, [4]),
           helper.make_tensor_value_info("lo", F, [])]
    outs = [helper.make_tensor_value_info("am", I64, [3]), helper.make_tensor_value_info("mx", F, [])]
    m = _model(nodes, ins, outs, opset=13)
    net = cl.Network(engine, cl.load_onnx(m))
    assert not isinstance(net, DynamicNetwork)
    feeds = {"x": rng.standard_normal((3, 7)).astype(np.float32), "idx": rng.integers(-7, 7, 4).astype(np.int64),
             "lo": np.array(rng.uniform(-0.5, 0.5), np.float32)}
    got, ref = net.run(feeds), _ort(m, feeds)
    assert got["am"].dtype == np.int64 and got["mx"].shape == () and got["mx"].dtype == np.float32
    np.testing.assert_array_equal(got["am"], ref["am"])
    np.testing.assert_allclose(got["mx"], ref["mx"], rtol=1e-6)
    with pytest.raises(cl.DTypeError, match=r"value 4294967296 does not fit in int32"):
        net.run({**feeds, "idx": np.array([0, 1, 2, 2**32], np.int64)})
    with pytest.raises(cl.DTypeError, match="expected int64 or int32, got float32"):
        net.set_input_data("idx", np.zeros(4, np.float32))


def test_bool_output_and_empty_output_and_an_unused_input(engine, rng):
    """A Cast to bool comes back as bool; a Slice past the end is an empty output; an input nothing reads is
    accepted and ignored."""
    nodes = [helper.make_node("Cast", ["x"], ["b"], to=TensorProto.BOOL),
             helper.make_node("Slice", ["x", "st", "en"], ["e"])]
    st = numpy_helper.from_array(np.array([5], np.int64), "st")
    en = numpy_helper.from_array(np.array([9], np.int64), "en")
    ins = [helper.make_tensor_value_info("x", F, [3, 4]), helper.make_tensor_value_info("unused", F, [2])]
    outs = [helper.make_tensor_value_info("b", TensorProto.BOOL, [3, 4]),
            helper.make_tensor_value_info("e", F, ["e0", 4])]
    m = _model(nodes, ins, outs, [st, en])
    x = np.round(rng.standard_normal((3, 4))).astype(np.float32)
    feeds = {"x": x, "unused": rng.standard_normal(2).astype(np.float32)}
    got, ref = cl.Network(engine, cl.load_onnx(m)).run(feeds), _ort(m, feeds)
    assert got["b"].dtype == np.bool_
    np.testing.assert_array_equal(got["b"], ref["b"])
    assert got["e"].shape == ref["e"].shape == (0, 4)


def test_shape_of_a_converted_tensor_folds_in_the_same_walk(engine, rng):
    """Pad by computed pads, then Shape of the Pad's output drives a Slice: ONNX shape inference cannot size the
    Pad's output, the walk folds the Shape once the Pad is converted."""
    nodes = [helper.make_node("Shape", ["x"], ["sx"]),
             helper.make_node("Sub", ["target", "sx"], ["diff"]),
             helper.make_node("Concat", ["zeros", "diff"], ["pads"], axis=0),
             helper.make_node("Pad", ["x", "pads"], ["p"]),
             helper.make_node("Shape", ["p"], ["sp"]),
             helper.make_node("Div", ["sp", "two"], ["half"]),
             helper.make_node("Slice", ["p", "half", "sp"], ["y"])]
    inits = [numpy_helper.from_array(np.array([6, 9], np.int64), "target"),
             numpy_helper.from_array(np.array([0, 0], np.int64), "zeros"),
             numpy_helper.from_array(np.array([2, 2], np.int64), "two")]
    m = _model(nodes, [helper.make_tensor_value_info("x", F, [4, 5])],
               [helper.make_tensor_value_info("y", F, ["h", "w"])], inits)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    got = cl.Network(engine, cl.load_onnx(m)).run({"x": x})["y"]
    np.testing.assert_array_equal(got, _ort(m, {"x": x})["y"])
