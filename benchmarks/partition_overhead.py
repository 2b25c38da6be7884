"""What the onnxruntime fallback costs when the unsupported nodes are post-processing at the end of a model.

    python benchmarks/partition_overhead.py [--device cl] [--model squeezenet] [--runs 30]

The zoo model (seeded weights, batch 1) with a post-processing tail the engine lacks: the classes whose
probability is above 1/classes (Greater, then NonZero: a data-dependent output shape, onnxruntime runs it). Three
networks in the same process, run interleaved: the engine part alone (the model up to the Greater mask, imported
whole), the partitioned full model (``load_onnx(..., fallback="onnxruntime")``: the engine
stage, then an onnxruntime stage), and onnxruntime on the full model (2 threads). The printed ratio
partitioned / engine-alone is what the fallback adds (issue 21's target: at most 1.05).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def with_tail(model: onnx.ModelProto, prob: str, classes: int, nonzero: bool = True) -> onnx.ModelProto:
    """``model`` plus ``Greater(prob, 1/classes) → NonZero → 'picked'`` (int64, shape (rank of prob, n)), the only
    output; without ``nonzero``, the mask (bool) is the output: the part the engine runs."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    m.graph.initializer.append(numpy_helper.from_array(np.array(1.0 / classes, np.float32), "thr"))
    m.graph.node.append(helper.make_node("Greater", [prob, "thr"], ["mask"]))
    dims = [d.dim_value for d in model.graph.output[0].type.tensor_type.shape.dim]
    del m.graph.output[:]
    if nonzero:
        m.graph.node.append(helper.make_node("NonZero", ["mask"], ["picked"]))
        m.graph.output.append(helper.make_tensor_value_info("picked", TensorProto.INT64, [len(dims), None]))
    else:
        m.graph.output.append(helper.make_tensor_value_info("mask", TensorProto.BOOL, dims))
    return m


def main() -> int:
    """Print the three medians (ms) and the ratio partitioned / engine alone."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None, help="cl:P:D or cpu (default: Engine()'s choice)")
    ap.add_argument("--model", default="squeezenet")
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    import onnxruntime as ort

    import cldnn_py as cl
    from cldnn_py.tools import zoo

    base = zoo.make_model(args.model, seed=0, batch=1, check=False)
    prob = base.graph.output[0].name
    classes = int(np.prod([d.dim_value for d in base.graph.output[0].type.tensor_type.shape.dim[1:]]))
    full = with_tail(base, prob, classes)
    engine = cl.Engine(args.device)
    alone = cl.Network(engine, cl.load_onnx(with_tail(base, prob, classes, nonzero=False)))
    topo = cl.load_onnx(full, fallback="onnxruntime")
    print(topo.describe())
    split = cl.Network(engine, topo)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    sess = ort.InferenceSession(full.SerializeToString(), so, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).standard_normal(zoo.input_shape(args.model, 1)).astype(np.float32)
    feeds = {zoo.input_name(args.model): x}
    ref = sess.run(None, feeds)[0]
    got = split.run(feeds)["picked"]
    assert np.array_equal(got, ref), "partitioned result differs from onnxruntime's"
    runs: dict[str, list[float]] = {"engine alone": [], "partitioned": [], "onnxruntime": []}
    calls = {"engine alone": lambda: alone.run(feeds), "partitioned": lambda: split.run(feeds),
             "onnxruntime": lambda: sess.run(None, feeds)}
    for f in calls.values():
        f()
    for _ in range(args.runs):
        for k, f in calls.items():
            time.sleep(0.02)
            t0 = time.perf_counter()
            f()
            runs[k].append((time.perf_counter() - t0) * 1e3)
    med = {k: statistics.median(v) for k, v in runs.items()}
    print(f"{args.model} batch 1 on {engine.info.name}: " + ", ".join(f"{k} {v:.2f} ms" for k, v in med.items()))
    print(f"partitioned / engine alone: {med['partitioned'] / med['engine alone']:.3f}; "
          f"partitioned / onnxruntime: {med['partitioned'] / med['onnxruntime']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
