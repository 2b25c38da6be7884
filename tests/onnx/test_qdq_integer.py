"""QDQ models on the integer kernels (``frontend/onnx_qdq.py``, ``INTEGER_PATH = "always"``): Conv and Gemm groups
(DequantizeLinear → Conv → [Relu] → QuantizeLinear) become QLinearConv, then QuantizedConvolution, and compute
what onnxruntime's int8 run of the same QDQ model computes (its QDQ transformers make the same QLinearConv); groups
the rewrite cannot take keep the float path and the same results. 7-bit weights, as onnxruntime's tools write them
(its u8 × s8 kernels saturate on this machine otherwise: tests/onnx/test_quantized_integer.py)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import cldnn_py as cl
from cldnn_py.frontend.onnx_ops import quantization_integer
from cldnn_py.frontend.onnx_qdq import fuse_qdq
from tests.onnx.nn_util import run_ort


@pytest.fixture
def always(monkeypatch):
    monkeypatch.setattr(quantization_integer, "INTEGER_PATH", "always")


def _qdq(nodes, inits, name, scale, zp):
    """Append QuantizeLinear → DequantizeLinear of tensor ``name``; returns the dequantized tensor's name."""
    inits[name + "_s"], inits[name + "_z"] = np.float32(scale), zp
    nodes.append(helper.make_node("QuantizeLinear", [name, name + "_s", name + "_z"], [name + "_q"]))
    nodes.append(helper.make_node("DequantizeLinear", [name + "_q", name + "_s", name + "_z"], [name + "_dq"]))
    return name + "_dq"


def _weights(nodes, inits, name, w, scale, axis=0):
    """A constant int8 tensor and its DequantizeLinear (per-tensor or per-axis ``scale``)."""
    inits[name + "_q"], inits[name + "_s"] = w, np.asarray(scale, np.float32)
    inits[name + "_z"] = np.zeros(np.shape(scale), w.dtype)
    nodes.append(helper.make_node("DequantizeLinear", [name + "_q", name + "_s", name + "_z"], [name],
                                  axis=axis))
    return name


def qdq_model(rng, relu_zp=0, bias_scale_factor=1.0):
    """x (1, 8, 10, 10) → Q/DQ → Conv 3×3 (per-channel weights, int32 bias) → Relu → Q(zp ``relu_zp``)/DQ →
    Conv 1×1 stride 2 (per-tensor weights, no bias) → Q(zp 128)/DQ → Flatten → Q/DQ (the same scale and zero
    point: onnxruntime flattens the uint8 tensor) → Gemm (transB, per-row weights, bias) → Q/DQ → y (1, 24).
    ``bias_scale_factor`` ≠ 1 gives the first bias a scale other than s_x·s_w (the rewrite must refuse it)."""
    nodes, inits = [], {}
    x = _qdq(nodes, inits, "x", 0.03, np.uint8(118))
    s1 = rng.uniform(0.002, 0.006, 12).astype(np.float32)
    w1 = _weights(nodes, inits, "w1", rng.integers(-64, 64, (12, 8, 3, 3)).astype(np.int8), s1)
    inits["b1_q"] = rng.integers(-400, 400, 12).astype(np.int32)
    inits["b1_s"] = (np.float32(0.03) * s1 * np.float32(bias_scale_factor)).astype(np.float32)
    nodes.append(helper.make_node("DequantizeLinear", ["b1_q", "b1_s"], ["b1"], axis=0))
    nodes.append(helper.make_node("Conv", [x, w1, "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"))
    nodes.append(helper.make_node("Relu", ["c1"], ["r1"]))
    h = _qdq(nodes, inits, "r1", 0.02, np.uint8(relu_zp))
    w2 = _weights(nodes, inits, "w2", rng.integers(-64, 64, (16, 12, 1, 1)).astype(np.int8), 0.004)
    nodes.append(helper.make_node("Conv", [h, w2], ["c2"], strides=[2, 2], name="conv2"))
    h = _qdq(nodes, inits, "c2", 0.01, np.uint8(128))
    nodes.append(helper.make_node("Flatten", [h], ["f"]))
    h = _qdq(nodes, inits, "f", 0.01, np.uint8(128))
    s3 = rng.uniform(0.003, 0.008, 24).astype(np.float32)
    w3 = _weights(nodes, inits, "w3", rng.integers(-64, 64, (24, 400)).astype(np.int8), s3)
    inits["b3_q"] = rng.integers(-200, 200, 24).astype(np.int32)
    inits["b3_s"] = np.float32(0.01) * s3
    nodes.append(helper.make_node("DequantizeLinear", ["b3_q", "b3_s"], ["b3"], axis=0))
    nodes.append(helper.make_node("Gemm", [h, w3, "b3"], ["g"], transB=1, name="fc"))
    y = _qdq(nodes, inits, "g", 0.05, np.uint8(128))
    nodes.append(helper.make_node("Identity", [y], ["y"]))
    g = helper.make_graph(nodes, "qdq", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 10, 10])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 24])],
                          [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    onnx.checker.check_model(m)
    return m


def _steps(y, ref, step):
    """Distance of each element from onnxruntime's, in quantization steps (both are multiples of ``step``)."""
    return np.abs(np.rint(y / step) - np.rint(ref / step))


def test_qdq_groups_run_on_the_integer_kernels(engine, rng, always):
    """Both convolutions and the Gemm become QuantizedConvolutions. On fresh inputs the output equals onnxruntime's
    int8 run of the QDQ model (its QDQ transformers make the same QLinearConvs; nothing between them computes in
    float), which is independent of the rewrite."""
    m = qdq_model(rng)
    topo = cl.load_onnx(m)
    kinds = [p.type_name for p in topo]
    assert kinds.count("quantized_convolution") == 3 and "convolution" not in kinds and "fully_connected" not in kinds
    net = cl.Network(engine, topo)
    net.poison()
    for _ in range(2):
        x = rng.standard_normal((1, 8, 10, 10)).astype(np.float32) * 2
        y = net.run({"x": x})["y"]
        ref = run_ort(m, {"x": x})[0]
        assert len(np.unique(ref)) > 12
        np.testing.assert_array_equal(y, ref)


def test_rewrite_takes_the_groups_it_can_and_nothing_else(rng):
    """Counts of the rewrite: all three groups; a Relu before a zero point other than the type's minimum (the
    Relu would change the result: group refused); a bias whose scale is not s_x·s_w (refused)."""
    assert fuse_qdq(qdq_model(rng))[1] == 3
    m, n = fuse_qdq(qdq_model(rng, relu_zp=3))
    assert n == 2 and "conv1" not in {x.name for x in m.graph.node if x.op_type == "QLinearConv"}
    m, n = fuse_qdq(qdq_model(rng, bias_scale_factor=1.01))
    assert n == 2 and [x for x in m.graph.node if x.name == "conv1"][0].op_type == "Conv"
    onnx.checker.check_model(m)


def test_refused_groups_keep_the_float_path(rng, always):
    """A group the rewrite refuses (the Relu one) still computes onnxruntime's result (float path)."""
    m = qdq_model(rng, relu_zp=3)
    topo = cl.load_onnx(m)
    assert [p.type_name for p in topo].count("quantized_convolution") == 2
    net = cl.Network(cl.Engine("cpu"), topo)
    x = rng.standard_normal((1, 8, 10, 10)).astype(np.float32) * 2
    d = _steps(net.run({"x": x})["y"], run_ort(m, {"x": x})[0], 0.05)
    assert d.max() <= 1


def test_auto_keeps_qdq_models_on_the_float_kernels(rng, monkeypatch):
    """The default: no QDQ rewrite (the float path with fused fake quantization is faster on this project's
    devices, docs/precision.md)."""
    monkeypatch.setattr(quantization_integer, "INTEGER_PATH", "auto")
    kinds = {p.type_name for p in cl.load_onnx(qdq_model(rng))}
    assert "quantized_convolution" not in kinds and "convolution" in kinds


def test_the_environment_variable_sets_the_policy(rng, monkeypatch):
    """``CLDNN_PY_INTEGER_PATH=always`` rewrites as ``INTEGER_PATH = "always"`` does; another value is refused."""
    monkeypatch.setattr(quantization_integer, "INTEGER_PATH", None)
    monkeypatch.setenv("CLDNN_PY_INTEGER_PATH", "always")
    kinds = [p.type_name for p in cl.load_onnx(qdq_model(rng))]
    assert kinds.count("quantized_convolution") == 3
    monkeypatch.setenv("CLDNN_PY_INTEGER_PATH", "sometimes")
    with pytest.raises(ValueError, match="CLDNN_PY_INTEGER_PATH must be 'auto' or 'always', got 'sometimes'"):
        cl.load_onnx(qdq_model(rng))
