"""Quantized ONNX models as onnxruntime's quantization tools make them (static QDQ per tensor and per channel,
QOperator, dynamic), on both engines, against onnxruntime's own int8 run of the same model.

The engine computes quantized operators as ONNX defines them: in float on the quantized values
(onnx_ops/quantization.py), or, for QLinearConv / ConvInteger layers whose float sums could round, as integer
convolutions (onnx_ops/quantization_integer.py; tests/onnx/test_quantized_integer.py). onnxruntime with its graph
optimizations disabled runs the same definitions, and the outputs agree to float rounding (every quantized
activation equal). onnxruntime's default session fuses the QDQ pairs into integer kernels (QLinearConv, QLinearAdd,
QLinearGlobalAveragePool ... with fixed-point requantization), which differ from its own unoptimized run by up to a
few output steps on small outputs (measured on this test's network: up to 5 steps on 10 logits, 95-100% within one
step); that comparison is reported by ``benchmarks/int8.py``, not asserted here.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import cldnn_py as cl
from cldnn_py.tools import quantized

pytest.importorskip("onnxruntime.quantization")


def small_net(seed: int) -> onnx.ModelProto:
    """Conv-ReLU, depthwise Conv, residual Add, Concat, MaxPool, global pooling, MatMul + bias: 3x12x12 -> 10."""
    rng = np.random.default_rng(seed)

    def w(name, *shape, scale=0.3):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)

    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], group=8),
             helper.make_node("Add", ["c2", "r1"], ["s"]),
             helper.make_node("Relu", ["s"], ["r2"]),
             helper.make_node("Concat", ["r2", "r1"], ["cat"], axis=1),
             helper.make_node("MaxPool", ["cat"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("GlobalAveragePool", ["p"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("MatMul", ["f", "w3"], ["m"]),
             helper.make_node("Add", ["m", "b3"], ["y"])]
    inits = [w("w1", 8, 3, 3, 3), w("b1", 8, scale=0.1), w("w2", 8, 1, 3, 3), w("b2", 8, scale=0.1),
             w("w3", 16, 10), w("b3", 10, scale=0.1)]
    g = helper.make_graph(nodes, "small", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 12, 12])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)


def compare(engine, path, feeds: list[dict[str, np.ndarray]]) -> None:
    """Our outputs vs onnxruntime's unoptimized run of the quantized model. A quantized output (the model ends
    in DequantizeLinear): every element within one quantization step (issue 18's bound is 99.9% of them), and at
    least 99.5% on the very same step (OpenCL's summation order, and Winograd's transforms on PoCL, can move a sum
    across a half step: SqueezeNet QDQ 99.85%; onnxruntime's own integer kernels differ from this reference by
    more). A float output: within 1e-3 of the
    largest (an intermediate tie flipped moves it by about one step of that layer)."""
    import onnxruntime as ort

    model = onnx.load(str(path))
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    net = cl.Network(engine, cl.load_onnx(model))
    out = model.graph.output[0].name
    step = quantized.output_step(model, out)
    ours = np.stack([net.run(f)[out] for f in feeds]).astype(np.float64)
    ref = np.stack([sess.run([out], f)[0] for f in feeds]).astype(np.float64)
    assert ours.shape == ref.shape and np.isfinite(ours).all()
    diff = np.abs(ours - ref)
    if step is not None:
        steps = np.abs(np.rint(ours / step) - np.rint(ref / step))
        assert steps.max() <= 1, f"an element {steps.max():.0f} quantization steps off"
        assert (steps == 0).mean() >= 0.995, f"only {(steps == 0).mean():.3%} of the elements on the same step"
    else:
        assert diff.max() <= 1e-3 * np.abs(ref).max(), f"worst {diff.max() / np.abs(ref).max():.3g} of the largest"


@pytest.mark.parametrize("kind", quantized.KINDS)
def test_small_net_quantized_by_onnxruntime(engine, rng, tmp_path, kind):
    model = small_net(int(rng.integers(1000)))
    path = quantized.quantize(model, kind, tmp_path, quantized.calibration_set(model, 4, int(rng.integers(1000))))
    ops = {n.op_type for n in onnx.load(str(path)).graph.node}
    expected = {"qdq": "QuantizeLinear", "qdq_per_channel": "QuantizeLinear", "qoperator": "QLinearConv",
                "dynamic": "ConvInteger"}[kind]
    assert expected in ops, ops
    compare(engine, path, quantized.calibration_set(model, 8, int(rng.integers(1000))))


@pytest.mark.network
@pytest.mark.unoptimized_build
@pytest.mark.parametrize("kind", ["qdq_per_channel", "dynamic"])
def test_squeezenet_quantized_by_onnxruntime(engine, rng, tmp_path, kind):
    """A zoo network (seeded weights) quantized statically and dynamically: every logit on onnxruntime's step."""
    from cldnn_py.tools import zoo

    model = zoo.make_model("squeezenet", seed=int(rng.integers(1000)))
    calib = quantized.calibration_set(model, 2, int(rng.integers(1000)))
    path = quantized.quantize(model, kind, tmp_path, calib, name="squeezenet")
    compare(engine, path, quantized.calibration_set(model, 2, int(rng.integers(1000))))
