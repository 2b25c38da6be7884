"""A small seeded CNN as ONNX (dynamic batch), for the integration tests: conv-relu-pool-conv-relu-GAP-gemm with
two outputs, ``logits`` (N, 10) and ``probs`` (N, 10, softmax)."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SHAPE = (3, 16, 16)  # one row: C, H, W


def small_cnn(seed: int = 0) -> bytes:
    """The serialized model; weights from ``np.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)

    def w(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)

    inits = [w("c1w", 8, 3, 3, 3), w("c1b", 8), w("c2w", 16, 8, 3, 3), w("c2b", 16), w("fcw", 16, 10), w("fcb", 10)]
    nodes = [
        helper.make_node("Conv", ["image", "c1w", "c1b"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "c2w", "c2b"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "fcw", "fcb"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "small_cnn", [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", *SHAPE])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10]),
         helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["N", 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()
