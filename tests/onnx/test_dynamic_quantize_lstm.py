"""com.microsoft DynamicQuantizeLSTM (onnxruntime's ``quantize_dynamic`` of an LSTM) on both engines.

The reference is independent of the importer: the quantized model's int8 weights dequantized here with numpy
(float64), transposed back to ONNX LSTM's layout, and run by onnx's reference evaluator (an ONNX LSTM). Against
onnxruntime's own run of the quantized model the bound is loose: onnxruntime also quantizes X and every step's H
to uint8, which the engine does not (see ``onnx_ops/contrib_quantized_lstm.py``).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import cldnn_py as cl
from cldnn_py.errors import UnsupportedError

pytest.importorskip("onnxruntime.quantization")

T, B, I, H = 6, 2, 10, 12  # noqa: E741 - steps, batch, input, hidden as ONNX's LSTM names them


def float_lstm(seed: int, direction: str, states: bool) -> onnx.ModelProto:
    """x (T, B, I) → LSTM (hidden H, ``direction``, biases, peepholes, optionally initial states) → Y, Y_h, Y_c."""
    rng = np.random.default_rng(seed)
    nd = 2 if direction == "bidirectional" else 1

    def w(name, *shape, scale=0.4):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)

    inits = [w("W", nd, 4 * H, I), w("R", nd, 4 * H, H), w("Bias", nd, 8 * H, scale=0.2), w("P", nd, 3 * H, scale=0.2)]
    ins = ["x", "W", "R", "Bias", "", "", "", "P"]
    if states:
        inits += [w("h0", nd, B, H, scale=0.5), w("c0", nd, B, H, scale=0.5)]
        ins[5:7] = ["h0", "c0"]
    node = helper.make_node("LSTM", ins, ["y", "yh", "yc"], hidden_size=H, direction=direction)
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [T, nd, B, H]),
            helper.make_tensor_value_info("yh", TensorProto.FLOAT, [nd, B, H]),
            helper.make_tensor_value_info("yc", TensorProto.FLOAT, [nd, B, H])]
    g = helper.make_graph([node], "lstm", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [T, B, I])], outs,
                          inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)], ir_version=9)


def quantized(tmp_path, model: onnx.ModelProto, per_channel: bool) -> onnx.ModelProto:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    src, dst = tmp_path / "f32.onnx", tmp_path / "q.onnx"
    onnx.save(model, str(src))
    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8, per_channel=per_channel)
    q = onnx.load(str(dst))
    assert [n.op_type for n in q.graph.node] == ["DynamicQuantizeLSTM"], "onnxruntime's tool changed: re-check"
    return q


def dequantized_reference(q: onnx.ModelProto, x: np.ndarray) -> list[np.ndarray]:
    """The quantized node as an ONNX LSTM on weights dequantized with numpy, run by onnx.reference (float64)."""
    from onnx.reference import ReferenceEvaluator

    (node,) = q.graph.node
    init = {i.name: numpy_helper.to_array(i) for i in q.graph.initializer}

    def deq(qi: int, si: int) -> np.ndarray:
        wq, s, z = (init[node.input[k]].astype(np.float64) for k in (qi, si, si + 1))
        nd = wq.shape[0]
        return ((wq - z.reshape(nd, 1, -1)) * s.reshape(nd, 1, -1)).transpose(0, 2, 1)

    consts = {"W": deq(1, 8), "R": deq(2, 10)}
    ins = ["x", "W", "R"] + list(node.input[3:8])
    for name in ins[3:]:
        if name:
            consts[name] = init[name].astype(np.float64)
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    lstm = helper.make_node("LSTM", ins, list(node.output), **attrs)
    g = helper.make_graph([lstm], "ref", [helper.make_tensor_value_info("x", TensorProto.DOUBLE, None)],
                          [helper.make_tensor_value_info(o, TensorProto.DOUBLE, None) for o in node.output],
                          [numpy_helper.from_array(v, k) for k, v in consts.items()])
    ref = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    return ReferenceEvaluator(ref).run(None, {"x": x.astype(np.float64)})


@pytest.mark.parametrize("direction,per_channel,states", [("forward", False, False), ("bidirectional", True, True),
                                                         ("reverse", True, False)])
def test_matches_the_lstm_on_dequantized_weights(engine, tmp_path, direction, per_channel, states):
    q = quantized(tmp_path, float_lstm(7, direction, states), per_channel)
    x = np.random.default_rng(11).standard_normal((T, B, I)).astype(np.float32)
    out = cl.Network(engine, cl.load_onnx(q)).run({"x": x})
    for name, ref in zip(["y", "yh", "yc"], dequantized_reference(q, x)):
        np.testing.assert_allclose(out[name], ref, rtol=1e-4, atol=1e-5, err_msg=name)


def test_uint8_weights_with_zero_points(engine, tmp_path):
    """uint8 weights, zero point 128 per tensor or per gate row (onnxruntime's tool writes symmetric int8 with zero
    points 0: this model, the same values shifted, exercises the subtraction)."""
    q = quantized(tmp_path, float_lstm(9, "bidirectional", False), per_channel=True)
    (node,) = q.graph.node
    init = {i.name: numpy_helper.to_array(i) for i in q.graph.initializer}
    for k in (1, 2):
        q = _with(q, node.input[k], (init[node.input[k]].astype(np.int16) + 128).astype(np.uint8))
    q = _with(q, node.input[9], np.full(init[node.input[9]].shape, 128, np.uint8))
    q = _with(q, node.input[11], np.full((2,), 128, np.uint8))
    q = _with(q, node.input[10], init[node.input[10]][:, 0].copy())  # R per tensor of a direction
    x = np.random.default_rng(4).standard_normal((T, B, I)).astype(np.float32)
    out = cl.Network(engine, cl.load_onnx(q)).run({"x": x})
    for name, ref in zip(["y", "yh", "yc"], dequantized_reference(q, x)):
        np.testing.assert_allclose(out[name], ref, rtol=1e-4, atol=1e-5, err_msg=name)


def test_dynamic_sequence_length(ocl_engine, tmp_path):
    """A CRNN's LSTM sees as many steps as the image is wide: a symbolic T specializes per length."""
    f = float_lstm(1, "bidirectional", False)
    f.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "T"
    f.graph.output[0].type.tensor_type.shape.dim[0].dim_param = "T"
    q = quantized(tmp_path, f, per_channel=False)
    net = cl.Network(ocl_engine, cl.load_onnx(q))
    for steps in (3, 8):
        x = np.random.default_rng(steps).standard_normal((steps, B, I)).astype(np.float32)
        out = net.run({"x": x})
        for name, ref in zip(["y", "yh", "yc"], dequantized_reference(q, x)):
            np.testing.assert_allclose(out[name], ref, rtol=1e-4, atol=1e-5, err_msg=f"{name}, {steps} steps")


def test_close_to_onnxruntime_and_to_the_float_model(ocl_engine, tmp_path):
    """Per-tensor weights (onnxruntime's default): within onnxruntime's own distance of the float model. (Per
    channel, onnxruntime's u8 × s8 kernels saturate 16-bit pair sums on CPUs without VNNI and land further away.)"""
    import onnxruntime as ort

    f32 = float_lstm(3, "bidirectional", True)
    q = quantized(tmp_path, f32, per_channel=False)
    x = np.random.default_rng(5).standard_normal((T, B, I)).astype(np.float32)
    ours = cl.Network(ocl_engine, cl.load_onnx(q)).run({"x": x})
    theirs = ort.InferenceSession(q.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    exact = ort.InferenceSession(f32.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    for name, t, e in zip(["y", "yh", "yc"], theirs, exact):
        assert np.abs(ours[name] - t).max() < 0.05, name
        assert np.abs(ours[name] - e).max() <= max(2 * np.abs(t - e).max(), 0.02), name


def _with(q: onnx.ModelProto, name: str, value: np.ndarray) -> onnx.ModelProto:
    m = onnx.ModelProto()
    m.CopyFrom(q)
    (i,) = [k for k, t in enumerate(m.graph.initializer) if t.name == name]
    m.graph.initializer[i].CopyFrom(numpy_helper.from_array(value, name))
    return m


def test_bad_scales_and_run_time_weights_name_the_node(tmp_path):
    q = quantized(tmp_path, float_lstm(1, "forward", False), per_channel=False)
    (node,) = q.graph.node
    scale, zp = node.input[8], node.input[9]
    with pytest.raises(UnsupportedError, match=rf"{node.name}.*W_scale / W_zero_point must have shape \(1,\)"):
        cl.load_onnx(_with(_with(q, scale, np.ones((3,), np.float32)), zp, np.zeros((3,), np.int8)))
    with pytest.raises(UnsupportedError, match="W_zero_point must be int8"):
        cl.load_onnx(_with(q, zp, np.zeros((1,), np.uint8)))
    with pytest.raises(UnsupportedError, match="W_scale must be finite and positive"):
        cl.load_onnx(_with(q, scale, np.array([-1.0], np.float32)))
    m = onnx.ModelProto()
    m.CopyFrom(q)
    (w,) = [t for t in m.graph.initializer if t.name == node.input[2]]
    m.graph.input.append(helper.make_tensor_value_info(w.name, TensorProto.INT8, list(w.dims)))
    m.graph.initializer.remove(w)
    with pytest.raises(UnsupportedError, match="R must be a constant"):
        cl.load_onnx(m)


def test_another_contrib_operator_is_listed_unsupported():
    node = helper.make_node("DynamicQuantizeMatMul", ["x", "w", "s"], ["y"], name="dqmm", domain="com.microsoft")
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
                          [numpy_helper.from_array(np.ones((4, 3), np.int8), "w"),
                           numpy_helper.from_array(np.ones((1,), np.float32), "s")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14), helper.make_opsetid("com.microsoft", 1)])
    with pytest.raises(UnsupportedError, match=r"DynamicQuantizeMatMul \(domain 'com.microsoft'.*dqmm"):
        cl.load_onnx(m)
