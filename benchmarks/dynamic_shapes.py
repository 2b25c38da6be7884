"""What a dynamic dimension costs: a CRNN-style text recognizer (dynamic batch and width) run through one
``Network(engine, load_onnx(model))`` against a fixed-shape Network of the same shape, and onnxruntime.

    python benchmarks/dynamic_shapes.py [--device cl] [--runs 30]

For each (batch, width): the first call's time (import at that signature, passes, kernels, allocation: the cost
of a new shape), then the median of ``--runs`` calls of the dynamic Network, of a Network imported with
``input_shapes`` fixed to that shape, and of onnxruntime (2 threads), interleaved run by run. The ratio
dynamic/fixed is what a seen signature costs over a static import (one signature lookup).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def crnn(rng: np.random.Generator, height: int = 32, classes: int = 37, hidden: int = 32):
    """Conv-ReLU ×3 with poolings down to height 1, a (width/4, batch, 64) sequence, a bidirectional LSTM of
    ``hidden`` units (unrolled at import to width/4 steps), a MatMul classifier over its (batch, width/4,
    2·hidden) output and a softmax over ``classes``: the shape of a CRNN recognizer. Inputs x: (batch, 1, 32,
    width)."""
    def t(name, shape, scale=0.2):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)

    inits = [t("w1", (32, 1, 3, 3)), t("b1", (32,)), t("w2", (64, 32, 3, 3), 0.06), t("b2", (64,)),
             t("w3", (64, 64, 3, 3), 0.04), t("b3", (64,)), t("lw", (2, 4 * hidden, 64), 0.1),
             t("lr", (2, 4 * hidden, hidden), 0.1), t("lb", (2, 8 * hidden), 0.1), t("fc", (2 * hidden, classes), 0.1),
             numpy_helper.from_array(np.array([2], np.int64), "ax"),
             numpy_helper.from_array(np.array([0, 0, 2 * hidden], np.int64), "feat")]
    n = helper.make_node
    nodes = [n("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]), n("Relu", ["c1"], ["r1"]),
             n("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
             n("Conv", ["p1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]), n("Relu", ["c2"], ["r2"]),
             n("MaxPool", ["r2"], ["p2"], kernel_shape=[2, 2], strides=[2, 2]),
             n("Conv", ["p2", "w3", "b3"], ["c3"], pads=[1, 1, 1, 1]), n("Relu", ["c3"], ["r3"]),
             n("MaxPool", ["r3"], ["p3"], kernel_shape=[height // 4, 1], strides=[height // 4, 1]),
             n("Squeeze", ["p3", "ax"], ["s"]), n("Transpose", ["s"], ["seq"], perm=[2, 0, 1]),   # (W/4, b, 64)
             n("LSTM", ["seq", "lw", "lr", "lb"], ["ly"], hidden_size=hidden, direction="bidirectional"),
             n("Transpose", ["ly"], ["lt"], perm=[2, 0, 1, 3]), n("Reshape", ["lt", "feat"], ["h"]),  # (b, W/4, 2h)
             n("MatMul", ["h", "fc"], ["logits"]), n("Softmax", ["logits"], ["y"], axis=-1)]
    g = helper.make_graph(nodes, "crnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                         ["batch", 1, height, "width"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", classes])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)


def main() -> int:
    """Print one line per (batch, width): new-signature ms, dynamic/fixed/onnxruntime medians and ratios."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cl")
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    import onnxruntime as ort

    import cldnn_py as cl

    rng = np.random.default_rng(0)
    model = crnn(rng)
    engine = cl.Engine(args.device)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    t0 = time.perf_counter()
    dyn = cl.Network(engine, cl.load_onnx(model))
    print(f"device {engine.info.name}; load_onnx + Network (dynamic, nothing built): "
          f"{(time.perf_counter() - t0) * 1e3:.1f} ms")
    print("batch width | new signature ms | dynamic ms | fixed ms | onnxruntime ms | dynamic/fixed | dyn/ort | err")
    for batch, width in ((1, 100), (1, 200), (4, 100), (1, 320), (1, 100)):
        x = rng.standard_normal((batch, 1, 32, width)).astype(np.float32)
        builds = dyn.builds
        t0 = time.perf_counter()
        got = dyn.run({"x": x})["y"]
        first = (time.perf_counter() - t0) * 1e3
        fixed = cl.Network(engine, cl.load_onnx(model, {"x": x.shape}))
        ref = sess.run(None, {"x": x})[0]
        times: dict[str, list[float]] = {"dyn": [], "fixed": [], "ort": []}
        for _ in range(3):
            fixed.run({"x": x})
        for _ in range(args.runs):
            for key in ("dyn", "fixed", "ort"):
                t0 = time.perf_counter()
                if key == "ort":
                    sess.run(None, {"x": x})
                else:
                    (dyn if key == "dyn" else fixed).run({"x": x})
                times[key].append((time.perf_counter() - t0) * 1e3)
        med = {k: float(np.median(v)) for k, v in times.items()}
        new = f"{first:8.1f}" if dyn.builds > builds else "   (seen)"
        err = float(np.abs(got - ref).max())
        print(f"{batch:5d} {width:5d} | {new} | {med['dyn']:10.2f} | {med['fixed']:8.2f} | {med['ort']:14.2f} | "
              f"{med['dyn'] / med['fixed']:13.2f} | {med['dyn'] / med['ort']:7.2f} | {err:.1e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
