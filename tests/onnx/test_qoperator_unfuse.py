"""QOperator models on the fast path (``frontend/onnx_qoperator.py``): QLinearConv / QLinearMatMul nodes whose float
path is provably exact become QDQ groups, so their quantization fuses into the float kernels; the others keep the
integer kernels. Against onnxruntime on fresh inputs (7-bit weights, as its tools write them)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import cldnn_py as cl
from cldnn_py.frontend.onnx_ops import quantization_integer
from cldnn_py.frontend.onnx_qoperator import unfuse_qoperator
from tests.onnx.nn_util import run_ort


@pytest.fixture(autouse=True)
def auto(monkeypatch):
    monkeypatch.setattr(quantization_integer, "INTEGER_PATH", "auto")


def qoperator_model(rng, wide=False):
    """x (1, 8, 9, 9) float → QuantizeLinear → QLinearConv 3×3 (per-channel 7-bit weights, int32 bias) →
    QLinearConv 1×1 stride 2 (per-tensor weights; with ``wide``, 2048 input channels of full-range weights, whose
    float sums the bound cannot prove exact) → DequantizeLinear → Reshape (1, 25, C) → QuantizeLinear →
    QLinearMatMul (C, 6) → DequantizeLinear → y (1, 25, 6)."""
    c1 = 2048 if wide else 12
    inits = {"xs": np.float32(0.04), "xz": np.uint8(120),
             "w1": rng.integers(-64, 64, (c1, 8, 3, 3)).astype(np.int8),
             "w1s": rng.uniform(0.002, 0.005, c1).astype(np.float32), "w1z": np.zeros(c1, np.int8),
             "y1s": np.float32(0.03), "y1z": np.uint8(100), "b1": rng.integers(-500, 500, c1).astype(np.int32),
             "w2": (rng.integers(-128, 128, (16, c1, 1, 1)) if wide else rng.integers(-64, 64, (16, c1, 1, 1))
                    ).astype(np.int8),
             "w2s": np.float32(0.004), "w2z": np.int8(0), "y2s": np.float32(0.05), "y2z": np.uint8(128),
             "shape": np.array([1, 16, 25], np.int64), "perm_s": np.float32(0.05), "perm_z": np.uint8(128),
             "w3": rng.integers(-64, 64, (16, 6)).astype(np.int8), "w3s": np.float32(0.01), "w3z": np.int8(0),
             "y3s": np.float32(0.08), "y3z": np.uint8(128)}
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
             helper.make_node("QLinearConv", ["xq", "xs", "xz", "w1", "w1s", "w1z", "y1s", "y1z", "b1"], ["y1"],
                              pads=[1, 1, 1, 1], name="c1"),
             helper.make_node("QLinearConv", ["y1", "y1s", "y1z", "w2", "w2s", "w2z", "y2s", "y2z"], ["y2"],
                              strides=[2, 2], name="c2"),
             helper.make_node("DequantizeLinear", ["y2", "y2s", "y2z"], ["f2"]),
             helper.make_node("Reshape", ["f2", "shape"], ["r"]),
             helper.make_node("Transpose", ["r"], ["rt"], perm=[0, 2, 1]),
             helper.make_node("QuantizeLinear", ["rt", "perm_s", "perm_z"], ["rq"]),
             helper.make_node("QLinearMatMul", ["rq", "perm_s", "perm_z", "w3", "w3s", "w3z", "y3s", "y3z"], ["y3"],
                              name="mm"),
             helper.make_node("DequantizeLinear", ["y3", "y3s", "y3z"], ["y"])]
    g = helper.make_graph(nodes, "qop", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 9, 9])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 25, 6])],
                          [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    onnx.checker.check_model(m)
    return m


def test_qoperator_nodes_take_the_fused_float_path(engine, rng):
    """Both QLinearConvs and the QLinearMatMul become QDQ groups: float kernels, no integer one, the quantization
    chains fused (no uint8 tensor between the convolutions); every output within one step of onnxruntime's int8
    run, nearly all on it."""
    m = qoperator_model(rng)
    m2, n = unfuse_qoperator(m)
    assert n == 3 and not {"QLinearConv", "QLinearMatMul"} & {x.op_type for x in m2.graph.node}
    topo = cl.load_onnx(m)
    kinds = [p.type_name for p in topo]
    assert "quantized_convolution" not in kinds and kinds.count("convolution") == 2
    net = cl.Network(engine, topo)
    net.poison()
    for _ in range(2):
        x = rng.standard_normal((1, 8, 9, 9)).astype(np.float32) * 2
        y = net.run({"x": x})["y"]
        ref = run_ort(m, {"x": x})[0]
        d = np.abs(np.rint(y / 0.08) - np.rint(ref / 0.08))
        assert len(np.unique(ref)) > 20 and d.max() <= 1 and (d == 0).mean() >= 0.95, (d.max(), (d == 0).mean())
    between = [p for p in net.program.order if p.layout().dtype in (cl.DataType.u8, cl.DataType.i8)]
    assert not between, [p.id for p in between]


def test_nodes_the_bound_cannot_prove_keep_the_integer_path(rng):
    """The wide 1×1 layer (2048 full-range int8 weights per output): its float sums could round, so it stays a
    QLinearConv and imports as a QuantizedConvolution; the other two nodes are rewritten."""
    m2, n = unfuse_qoperator(qoperator_model(rng, wide=True))
    assert n == 2 and [x.name for x in m2.graph.node if x.op_type == "QLinearConv"] == ["c2"]
    kinds = [p.type_name for p in cl.load_onnx(qoperator_model(rng, wide=True))]
    assert kinds.count("quantized_convolution") == 1 and kinds.count("convolution") == 1


def test_always_keeps_qoperator_nodes(rng, monkeypatch):
    """Under INTEGER_PATH "always" nothing is rewritten: every node on the integer kernels."""
    monkeypatch.setattr(quantization_integer, "INTEGER_PATH", "always")
    kinds = [p.type_name for p in cl.load_onnx(qoperator_model(rng))]
    assert kinds.count("quantized_convolution") == 3 and "convolution" not in kinds
