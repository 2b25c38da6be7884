"""AlexNet and ResNet-50 v1.5 as ONNX graphs (opset 13, IR version 10) from a weights dict, for onnxruntime.

Written independently of examples/alexnet.py and examples/resnet50.py from the papers' architecture: only the
weight names (the Data ids of the examples) are shared, so a wrong stride, pad, group or wiring in either side
shows up as a mismatch. Every array of ``weights`` must be consumed (a leftover means the graphs differ).
Graph outputs: "logits" (N, 1000) and "prob" (N, 1000).
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
IR_VERSION = 10  # onnx 1.23 stamps IR 14 by default, which onnxruntime 1.31 refuses


class _Graph:
    """Collects nodes and initializers; ``init`` takes a weight by name and records it as used."""

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        self.weights = weights
        self.nodes: list[onnx.NodeProto] = []
        self.inits: dict[str, onnx.TensorProto] = {}

    def init(self, name: str, shape: tuple[int, ...]) -> str:
        arr = np.asarray(self.weights[name], dtype=np.float32)
        assert arr.shape == shape, f"{name}: shape {arr.shape}, expected {shape}"
        self.inits[name] = numpy_helper.from_array(arr, name)
        return name

    def node(self, op: str, inputs: list[str], output: str, **attrs) -> str:
        self.nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output

    def model(self, name: str, batch: int, input_shape: tuple[int, ...]) -> onnx.ModelProto:
        unused = set(self.weights) - set(self.inits)
        assert not unused, f"weights not used by the ONNX {name}: {sorted(unused)[:8]}"
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info("data", TensorProto.FLOAT, [batch, *input_shape])],
            [helper.make_tensor_value_info(o, TensorProto.FLOAT, [batch, 1000]) for o in ("logits", "prob")],
            initializer=list(self.inits.values()))
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=IR_VERSION)
        onnx.checker.check_model(model)
        return model


def alexnet_onnx(weights: dict[str, np.ndarray], batch: int = 1) -> onnx.ModelProto:
    """Caffe bvlc_alexnet (input 3x227x227), LRN size 5 alpha 1e-4 beta 0.75 bias 2, grouped conv2/4/5."""
    g = _Graph(weights)
    # name, in channels, out channels, kernel, stride, pad, group, LRN after, max pool after
    convs = [("conv1", 3, 96, 11, 4, 0, 1, True, True),
             ("conv2", 96, 256, 5, 1, 2, 2, True, True),
             ("conv3", 256, 384, 3, 1, 1, 1, False, False),
             ("conv4", 384, 384, 3, 1, 1, 2, False, False),
             ("conv5", 384, 256, 3, 1, 1, 2, False, True)]
    x = "data"
    for name, cin, cout, k, s, p, grp, lrn, pool in convs:
        x = g.node("Conv", [x, g.init(name + "_w", (cout, cin // grp, k, k)), g.init(name + "_b", (cout,))],
                   name, kernel_shape=[k, k], strides=[s, s], pads=[p, p, p, p], group=grp)
        x = g.node("Relu", [x], name + "_relu")
        if lrn:
            x = g.node("LRN", [x], name + "_lrn", size=5, alpha=1e-4, beta=0.75, bias=2.0)
        if pool:
            x = g.node("MaxPool", [x], name + "_pool", kernel_shape=[3, 3], strides=[2, 2])
    x = g.node("Flatten", [x], "flatten", axis=1)
    for name, cin, cout in [("fc6", 9216, 4096), ("fc7", 4096, 4096), ("fc8", 4096, 1000)]:
        out = "logits" if name == "fc8" else name
        x = g.node("Gemm", [x, g.init(name + "_w", (cout, cin)), g.init(name + "_b", (cout,))], out, transB=1)
        if name != "fc8":
            x = g.node("Relu", [x], name + "_relu")
    g.node("Softmax", ["logits"], "prob", axis=1)
    return g.model("alexnet", batch, (3, 227, 227))


def resnet50_onnx(weights: dict[str, np.ndarray], batch: int = 1) -> onnx.ModelProto:
    """ResNet-50 v1.5 (stride in the 3x3 conv of a bottleneck), Caffe naming, no conv biases, BN eps 1e-5."""
    g = _Graph(weights)

    def conv_bn(conv: str, bn: str, x: str, cin: int, cout: int, k: int, s: int = 1) -> str:
        p = k // 2
        y = g.node("Conv", [x, g.init(conv + "_w", (cout, cin, k, k))], conv, kernel_shape=[k, k],
                   strides=[s, s], pads=[p, p, p, p])
        stats = [g.init(f"{bn}_{n}", (cout,)) for n in ("scale", "shift", "mean", "var")]  # ONNX input order
        return g.node("BatchNormalization", [y, *stats], bn, epsilon=1e-5)

    x = g.node("Relu", [conv_bn("conv1", "bn_conv1", "data", 3, 64, 7, 2)], "conv1_relu")
    x = g.node("MaxPool", [x], "pool1", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for stage, blocks, width in [(2, 3, 64), (3, 4, 128), (4, 6, 256), (5, 3, 512)]:
        for b in range(blocks):
            n = f"{stage}{'abcdef'[b]}"
            s = 2 if (b == 0 and stage != 2) else 1
            y = g.node("Relu", [conv_bn(f"res{n}_branch2a", f"bn{n}_branch2a", x, cin, width, 1)], f"r{n}_2a")
            y = g.node("Relu", [conv_bn(f"res{n}_branch2b", f"bn{n}_branch2b", y, width, width, 3, s)],
                       f"r{n}_2b")
            y = conv_bn(f"res{n}_branch2c", f"bn{n}_branch2c", y, width, 4 * width, 1)
            shortcut = conv_bn(f"res{n}_branch1", f"bn{n}_branch1", x, cin, 4 * width, 1, s) if b == 0 else x
            x = g.node("Relu", [g.node("Add", [shortcut, y], f"res{n}")], f"res{n}_relu")
            cin = 4 * width
    x = g.node("Flatten", [g.node("GlobalAveragePool", [x], "pool5")], "flatten", axis=1)
    g.node("Gemm", [x, g.init("fc1000_w", (1000, 2048)), g.init("fc1000_b", (1000,))], "logits", transB=1)
    g.node("Softmax", ["logits"], "prob", axis=1)
    return g.model("resnet50", batch, (3, 224, 224))


def ort_session(model: onnx.ModelProto, threads: int = 2):
    """An onnxruntime CPU InferenceSession of ``model`` with ``threads`` intra-op threads."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
