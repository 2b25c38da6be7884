"""Dynamically quantized layers on the float path (``frontend/onnx_dynamic_quant.py``): DynamicQuantizeLinear →
ConvInteger / MatMulInteger → Cast becomes a float fake quantization and a float Conv / MatMul, so no uint8 or int32
tensor is left between the layers and the layer's scale, bias and Relu fuse into the convolution. Against
onnxruntime on fresh inputs (the graph as onnxruntime's ``quantize_dynamic`` writes it)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import cldnn_py as cl
from cldnn_py.frontend.onnx_dynamic_quant import rewrite_dynamic_quantization
from cldnn_py.frontend.onnx_ops import quantization_integer
from tests.onnx.nn_util import run_ort


@pytest.fixture(autouse=True)
def auto(monkeypatch):
    monkeypatch.setattr(quantization_integer, "INTEGER_PATH", "auto")


def _layer(nodes, inits, x, name, w, wz, bias, relu=True, matmul=False, **attrs):
    """One layer as quantize_dynamic writes it: DQL(x) → {Conv,MatMul}Integer → Cast → Mul(s · w_s) → Add(bias)."""
    inits.update({f"{name}_w": w, f"{name}_wz": wz, f"{name}_ws": np.float32(0.01), f"{name}_b": bias})
    nodes += [helper.make_node("DynamicQuantizeLinear", [x], [f"{name}_q", f"{name}_s", f"{name}_z"]),
              helper.make_node("Mul", [f"{name}_s", f"{name}_ws"], [f"{name}_sc"]),
              helper.make_node("MatMulInteger" if matmul else "ConvInteger",
                               [f"{name}_q", f"{name}_w", f"{name}_z", f"{name}_wz"], [f"{name}_i"], name=name,
                               **attrs),
              helper.make_node("Cast", [f"{name}_i"], [f"{name}_f"], to=TensorProto.FLOAT),
              helper.make_node("Mul", [f"{name}_f", f"{name}_sc"], [f"{name}_m"]),
              helper.make_node("Add", [f"{name}_m", f"{name}_b"], [f"{name}_a"])]
    if relu:
        nodes.append(helper.make_node("Relu", [f"{name}_a"], [f"{name}_r"]))
        return f"{name}_r"
    return f"{name}_a"


def dynamic_model(rng, wide=False, extra_reader=False, q_output=False):
    """x (1, 8, 9, 9) → conv 3×3 (int8 weights, zero point 0) → conv 1×1 stride 2 (uint8 weights, zero point 128;
    ``wide``: 2048 channels of full-range weights, which the bound cannot prove exact) → Reshape (1, C, 25)
    → Transpose → MatMulInteger (C, 6; per-column zero points, which onnxruntime's ConvInteger would refuse) →
    y (1, 25, 6). ``extra_reader``: the first ConvInteger's int32 output is also a graph output; ``q_output``: the
    first DynamicQuantizeLinear's uint8 output is."""
    c1 = 2048 if wide else 12
    nodes, inits = [], {}
    h = _layer(nodes, inits, "x", "c1", rng.integers(-64, 64, (c1, 8, 3, 3)).astype(np.int8), np.int8(0),
               rng.standard_normal((1, c1, 1, 1)).astype(np.float32), pads=[1, 1, 1, 1])
    w2 = rng.integers(0, 256, (16, c1, 1, 1)) if wide else rng.integers(100, 156, (16, c1, 1, 1))
    h = _layer(nodes, inits, h, "c2", w2.astype(np.uint8), np.uint8(128),
               rng.standard_normal((1, 16, 1, 1)).astype(np.float32), strides=[2, 2])
    inits["shape"] = np.array([1, 16, 25], np.int64)
    nodes += [helper.make_node("Reshape", [h, "shape"], ["r"]), helper.make_node("Transpose", ["r"], ["rt"],
                                                                               perm=[0, 2, 1])]
    y = _layer(nodes, inits, "rt", "mm", rng.integers(-64, 64, (16, 6)).astype(np.int8),
               rng.integers(-3, 4, 6).astype(np.int8),
               rng.standard_normal(6).astype(np.float32), relu=False, matmul=True)
    nodes.append(helper.make_node("Identity", [y], ["y"]))
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 25, 6])]
    if extra_reader:
        outs.append(helper.make_tensor_value_info("c1_i", TensorProto.INT32, [1, c1, 9, 9]))
    if q_output:
        outs.append(helper.make_tensor_value_info("c1_q", TensorProto.UINT8, [1, 8, 9, 9]))
    g = helper.make_graph(nodes, "dyn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 9, 9])], outs,
                          [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    onnx.checker.check_model(m)
    return m


def test_dynamic_layers_take_the_float_path(engine, rng):
    """All three layers rewritten: no integer activation in the program, the scale / bias / relu of each convolution in
    its epilogue on OpenCL, and the output equal to onnxruntime's int8 run up to float rounding (the convolutions'
    centred integer sums are exact and rounded back, so only the final products differ in the last bits)."""
    m = dynamic_model(rng)
    m2, n = rewrite_dynamic_quantization(m)
    ops = [x.op_type for x in m2.graph.node]
    assert n == 3 and not {"ConvInteger", "MatMulInteger", "DynamicQuantizeLinear"} & set(ops)
    assert ops.count("DynamicQuantParams") == 3
    net = cl.Network(engine, cl.load_onnx(m))
    net.poison()
    for _ in range(2):
        x = (rng.standard_normal((1, 8, 9, 9)) * 2).astype(np.float32)
        ref = run_ort(m, {"x": x})[0]
        np.testing.assert_allclose(net.run({"x": x})["y"], ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())
    ints = [p.id for p in net.program.order if p.layout().dtype in (cl.DataType.u8, cl.DataType.i32)
            and p.layout().count() > 1]  # the one-element zero points stay uint8, as the model declares them
    assert not ints, ints
    info = net.get_profiling_info()
    kernels = [p.kernel for p in info if p.status == "EXECUTED"]
    assert not [k for k in kernels if k.startswith("reduce")] and \
        sum(k.startswith("dynamic_quant_params") for k in kernels) == 3, kernels  # one kernel per quantization
    fused = {p.id: p.kernel for p in info if p.status == "FUSED"}
    if engine.kind == "ocl":
        assert fused.get("c1_m", "").startswith("fused into") and fused.get("c1_a") == fused["c1_m"], fused
        assert fused.get("c1_q__dyn_max", "").startswith("fused into"), fused  # the clamp: one eltwise kernel


def test_rewritten_and_node_by_node_agree(rng, monkeypatch):
    """The rewrite is the node-by-node path's arithmetic: the same outputs, bit for bit up to the last products
    (PoCL / CPU-engine kernels of one engine, same inputs)."""
    import cldnn_py.frontend.onnx as onnx_frontend

    m = dynamic_model(rng)
    x = (rng.standard_normal((1, 8, 9, 9)) * 2).astype(np.float32)
    engine = cl.Engine("cpu")
    fast = cl.Network(engine, cl.load_onnx(m)).run({"x": x})["y"]
    monkeypatch.setattr(onnx_frontend, "rewrite_dynamic_quantization", lambda model: (model, 0))
    slow = cl.Network(engine, cl.load_onnx(m)).run({"x": x})["y"]
    np.testing.assert_allclose(fast, slow, rtol=1e-6, atol=1e-6 * np.abs(slow).max())


def test_layers_the_rewrite_cannot_prove_stay(rng):
    """The wide layer (2048 full-range uint8 weights per output) keeps its ConvInteger; a ConvInteger whose int32
    output is also read elsewhere keeps it too; the others are rewritten, and both models still match
    onnxruntime."""
    for m, kept in ((dynamic_model(rng, wide=True), "c2"), (dynamic_model(rng, extra_reader=True), "c1")):
        m2, n = rewrite_dynamic_quantization(m)
        assert n == 2 and [x.name for x in m2.graph.node if x.op_type == "ConvInteger"] == [kept]
        x = (rng.standard_normal((1, 8, 9, 9)) * 2).astype(np.float32)
        ref = run_ort(m, {"x": x})[0]
        got = cl.Network(cl.Engine("cpu"), cl.load_onnx(m)).run({"x": x})["y"]
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())


def test_a_quantization_read_elsewhere_stays(engine, rng):
    """The first DynamicQuantizeLinear's uint8 output is also a graph output: the node stays (its output equal to
    onnxruntime's), its reader is still rewritten, with its own DynamicQuantParams."""
    m = dynamic_model(rng, q_output=True)
    m2, n = rewrite_dynamic_quantization(m)
    ops = [x.op_type for x in m2.graph.node]
    assert n == 3 and ops.count("DynamicQuantizeLinear") == 1 and ops.count("DynamicQuantParams") == 3
    x = (rng.standard_normal((1, 8, 9, 9)) * 2).astype(np.float32)
    ref_y, ref_q = run_ort(m, {"x": x})
    got = cl.Network(engine, cl.load_onnx(m)).run({"x": x})
    np.testing.assert_array_equal(got["c1_q"], ref_q)
    np.testing.assert_allclose(got["y"], ref_y, rtol=1e-5, atol=1e-5 * np.abs(ref_y).max())


def test_always_keeps_the_integer_layers(rng, monkeypatch):
    """Under INTEGER_PATH "always" nothing is rewritten (each layer on the integer kernels)."""
    monkeypatch.setattr(quantization_integer, "INTEGER_PATH", "always")
    kinds = [p.type_name for p in cl.load_onnx(dynamic_model(rng))]
    assert kinds.count("quantized_convolution") == 3 and "convolution" not in kinds
