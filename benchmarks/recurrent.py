"""Recurrent layers alone: a bidirectional LSTM or GRU (seeded, torch's initialization) on cldnn_py against
onnxruntime, per sequence length.

    python benchmarks/recurrent.py [--cells lstm gru] [--steps 20 100] [--hidden 96] [--input 64] [--batch 1]
                                   [--device cl] [--runs 15]

For each cell and length: the time to import, build and run once (what a new sequence length costs), the kernel
count, and the median wall ms of ``--runs`` interleaved runs of both (onnxruntime with 2 threads, its spinning off),
with the largest difference of Y. GRU uses ``linear_before_reset=1`` (torch's export) unless ``--gru-lbr 0``.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np


def model(cell: str, steps: int, batch: int, inp: int, hidden: int, lbr: int, seed: int = 0) -> Any:
    """An ONNX model x (steps, batch, inp) → bidirectional ``cell`` (hidden units) → Y (steps, 2, batch, hidden)."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    gates = 4 if cell == "lstm" else 3
    s = 1.0 / np.sqrt(hidden)
    inits = [numpy_helper.from_array(rng.uniform(-s, s, shape).astype(np.float32), name) for name, shape in
             (("W", (2, gates * hidden, inp)), ("R", (2, gates * hidden, hidden)), ("B", (2, 2 * gates * hidden)))]
    attrs: dict[str, Any] = {"hidden_size": hidden, "direction": "bidirectional"}
    if cell == "gru":
        attrs["linear_before_reset"] = lbr
    node = helper.make_node(cell.upper(), ["x", "W", "R", "B"], ["y"], **attrs)
    g = helper.make_graph([node], cell, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [steps, batch, inp])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [steps, 2, batch, hidden])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 9
    return m


def main(argv: list[str] | None = None) -> int:
    """Print one line per (cell, steps); exit status 0."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cells", nargs="+", default=["lstm", "gru"], choices=["lstm", "gru"])
    ap.add_argument("--steps", nargs="+", type=int, default=[20, 100])
    ap.add_argument("--hidden", type=int, default=96)
    ap.add_argument("--input", type=int, default=64)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--gru-lbr", type=int, default=1, choices=[0, 1])
    ap.add_argument("--device", default="cl", help="cldnn_py device spec (cl, cl:P:D or cpu)")
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args(argv)
    import onnxruntime as ort

    import cldnn_py as cl

    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    print("cell  steps | build + first run s | kernels | onnxruntime ms | cldnn_py ms | ratio | max |diff|")
    for cell in args.cells:
        for steps in args.steps:
            m = model(cell, steps, args.batch, args.input, args.hidden, args.gru_lbr)
            x = np.random.default_rng(steps).standard_normal((steps, args.batch, args.input)).astype(np.float32)
            sess = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
            t0 = time.perf_counter()
            net = cl.Network(cl.Engine(args.device), cl.load_onnx(m))
            ours = net.run({"x": x})["y"]
            build = time.perf_counter() - t0
            diff = float(np.abs(ours - sess.run(None, {"x": x})[0]).max())
            times: dict[str, list[float]] = {"ort": [], "cl": []}
            for _ in range(args.runs):
                for k, fn in (("ort", lambda s=sess, f={"x": x}: s.run(None, f)),
                              ("cl", lambda n=net, f={"x": x}: n.run(f))):
                    fn()
                    t = time.perf_counter()
                    fn()
                    times[k].append((time.perf_counter() - t) * 1e3)
                    time.sleep(0.01)
            o, c = float(np.median(times["ort"])), float(np.median(times["cl"]))
            print(f"{cell:5s} {steps:5d} | {build:19.1f} | {len(net.program.order):7d} | {o:14.2f} | {c:11.2f} | "
                  f"{c / o:5.2f} | {diff:.1e}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
