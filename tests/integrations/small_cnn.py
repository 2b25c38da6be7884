"""A small seeded CNN as ONNX (dynamic batch), for the integration tests: conv-relu-pool-conv-relu-GAP-gemm with
two outputs, ``logits`` (N, 10) and ``probs`` (N, 10, softmax); and the single-process reference run of it."""

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


def network_rows(model: bytes, device: str, batch: int, x: np.ndarray) -> dict[str, np.ndarray]:
    """The single-process reference: a plain Network compiled at ``batch`` fed chunk by chunk, the last chunk
    zero-padded by hand; {output: rows of x}."""
    import cldnn_py as cl

    net = cl.Network(cl.Program(cl.Engine(device), cl.load_onnx(model, {"image": (batch, *SHAPE)})))
    outs: dict[str, list[np.ndarray]] = {}
    for s in range(0, len(x), batch):
        rows = x[s:s + batch]
        chunk = np.zeros((batch, *SHAPE), np.float32)
        chunk[: len(rows)] = rows
        for k, v in net.run({"image": chunk}).items():
            outs.setdefault(k, []).append(v[: len(rows)])
    return {k: np.concatenate(v) for k, v in outs.items()}
