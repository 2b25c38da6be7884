"""Quantized zoo networks (onnxruntime's own quantization tools) on cldnn_py against onnxruntime's int8 run.

    python benchmarks/int8.py [--models resnet50 squeezenet googlenet crnn]
                              [--kinds qdq_per_channel qoperator dynamic] [--runs 10] [--devices cl:1:0 cpu]
                              [--integer-path auto|always] [--json .cache/int8.json]

For each model and kind (``cldnn_py.tools.quantized``: static QDQ per channel or QOperator, calibrated on 4 seeded
images, or dynamic), written once to ``.cache/models/int8/``: onnxruntime (CPU provider, 2 intra-op threads,
sequential, its default graph optimizations: integer kernels) runs the quantized model, and also the float model for
reference; every cldnn_py engine runs the quantized model (quantized operators in float, QDQ pairs as fused fake
quantization: docs/precision.md). Agreement on 4 seeded inputs: the share of output elements on the same
quantization step as onnxruntime's int8 run and the share within one step (the output's step is its DequantizeLinear
scale; for a float output, 1e-2 of the largest value stands for a step), and the same against onnxruntime with its
optimizations off (the ONNX definitions computed in float, as the engine does). ``--integer-path always`` imports
with ``quantization_integer.INTEGER_PATH = "always"``: QDQ groups become QLinearConv (``frontend/onnx_qdq.py``) and
every quantized convolution runs on the integer kernels (QuantizedConvolution). Latency: median wall ms over
``--runs`` interleaved runs, each right after an untimed one. Printed as a table; the JSON holds the rows.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from cldnn_py.tools import quantized, real_shapes, zoo  # noqa: E402


def _sessions(path: str, f32_model: Any) -> dict[str, Any]:
    import onnxruntime as ort

    def opts(optimize: bool) -> Any:
        so = ort.SessionOptions()
        so.intra_op_num_threads = 2
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if not optimize:
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        return so

    prov = ["CPUExecutionProvider"]
    return {"ort_int8": ort.InferenceSession(path, opts(True), providers=prov),
            "ort_ref": ort.InferenceSession(path, opts(False), providers=prov),
            "ort_f32": ort.InferenceSession(f32_model.SerializeToString(), opts(True), providers=prov)}


def _agreement(ours: np.ndarray, ref: np.ndarray, step: float) -> tuple[float, float]:
    k = np.abs(np.rint(ours / step) - np.rint(ref / step))
    return float((k == 0).mean()), float((k <= 1).mean())


def measure(name: str, kind: str, devices: list[str], runs: int) -> dict[str, Any]:
    """One (model, kind) row (module docstring)."""
    import onnx

    import cldnn_py as cl

    model = real_shapes.make_model(name, seed=0) if name in real_shapes.MODELS else zoo.make_model(name, seed=0)
    folder = ROOT / ".cache" / "models" / "int8"
    path = folder / f"{name}_{kind}.onnx"
    if not path.exists():
        quantized.quantize(model, kind, folder, quantized.calibration_set(model, 4, 1), name=name)
    qmodel = onnx.load(str(path))
    out = qmodel.graph.output[0].name
    sess = _sessions(str(path), model)
    nets = {d: cl.Network(cl.Engine(d), cl.load_onnx(qmodel)) for d in devices}
    feeds = quantized.calibration_set(model, 4, 2)
    ref = {k: np.stack([s.run([out], f)[0] for f in feeds]) for k, s in sess.items() if k != "ort_f32"}
    step = quantized.output_step(qmodel, out) or 1e-2 * float(np.abs(ref["ort_int8"]).max())
    row: dict[str, Any] = {"model": name, "kind": kind, "step": step}
    for d, net in nets.items():
        ours = np.stack([net.run(f)[out] for f in feeds])
        row[d] = {"vs_int8": _agreement(ours, ref["ort_int8"], step), "vs_ref": _agreement(ours, ref["ort_ref"], step)}
    x = feeds[0]
    runners = {**{k: (lambda s=s: s.run(None, x)) for k, s in sess.items() if k != "ort_ref"},
               **{d: (lambda n=n: n.run(x)) for d, n in nets.items()}}
    times: dict[str, list[float]] = {k: [] for k in runners}
    for _ in range(runs):
        for k, fn in runners.items():
            fn()
            t = time.perf_counter()
            fn()
            times[k].append((time.perf_counter() - t) * 1e3)
            time.sleep(0.02)
    for k, ts in times.items():
        row.setdefault(k, {})["ms"] = float(np.median(ts))
    return row


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison (module docstring); exit status 0."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=["resnet50", "squeezenet", "googlenet"],
                    choices=(*zoo.MODELS, *real_shapes.MODELS),
                    help="zoo or real-shapes models (crnn: dynamic quantization makes its LSTMs DynamicQuantizeLSTM)")
    ap.add_argument("--kinds", nargs="+", default=["qdq_per_channel", "qoperator", "dynamic"])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--devices", nargs="+", default=None, help="cldnn_py device specs (default: OpenCL default, cpu)")
    ap.add_argument("--integer-path", choices=("auto", "always"), default=None,
                    help="the importer's integer path (default: CLDNN_PY_INTEGER_PATH, else auto)")
    ap.add_argument("--json", default=str(ROOT / ".cache" / "int8.json"))
    args = ap.parse_args(argv)
    import cldnn_py as cl
    from cldnn_py.frontend.onnx_ops import quantization_integer

    if args.integer_path:
        quantization_integer.INTEGER_PATH = args.integer_path

    devices = args.devices or [cl.Engine().info.spec, "cpu"]
    rows = []
    print("| model | kind | ort f32 ms | ort int8 ms | " + " | ".join(
        f"{d} ms (÷ ort int8) | {d} same step / within 1 vs ort int8 | vs ort unoptimized" for d in devices) + " |")
    print("|---|---|---|---|" + "---|---|---|" * len(devices))
    for name in args.models:
        for kind in args.kinds:
            r = measure(name, kind, devices, args.runs)
            rows.append(r)
            cells = [f"{r['ort_f32']['ms']:.1f}", f"{r['ort_int8']['ms']:.1f}"]
            for d in devices:
                a, b = r[d]["vs_int8"], r[d]["vs_ref"]
                cells += [f"{r[d]['ms']:.1f} ({r[d]['ms'] / r['ort_int8']['ms']:.2f}×)", f"{a[0]:.1%} / {a[1]:.1%}",
                          f"{b[0]:.1%} / {b[1]:.1%}"]
            print(f"| {name} | {kind} | " + " | ".join(cells) + " |", flush=True)
    out = pathlib.Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
