"""Batch-1 latency of cldnn_py against onnxruntime on the same models, same weights, same process.

    python benchmarks/latency.py [--models alexnet resnet50] [--runs 10] [--json out.json]

Both engines run the networks of examples/ (seeded weights); onnxruntime runs the equivalent ONNX graph built by
tests/e2e/onnx_models.py with 2 intra-op threads. Reports the median of ``--runs`` runs after a warm-up, in ms,
and the ratio ours / onnxruntime (lower is better; 1.0 is parity).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cldnn_py as cl  # noqa: E402
from tests.e2e.onnx_models import alexnet_onnx, ort_session, resnet50_onnx  # noqa: E402

ONNX = {"alexnet": alexnet_onnx, "resnet50": resnet50_onnx}


def _example(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def median_ms(fn, runs: int) -> float:
    """Median wall time of ``fn()`` in ms over ``runs`` calls after one warm-up call."""
    fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


def bench(name: str, engine: cl.Engine, runs: int) -> dict[str, float]:
    """Build and time one model on both engines; returns the figures in ms."""
    mod = _example(name)
    topo, weights = mod.build(1)
    program = cl.Program(engine, topo, cl.BuildOptions(outputs=mod.OUTPUTS))
    net = cl.Network(program)
    shape = (1, *mod.INPUT_SHAPE)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    ours = median_ms(lambda: net.run({"data": x}), runs)
    sess = ort_session(ONNX[name](weights, 1))
    theirs = median_ms(lambda: sess.run(None, {"data": x}), runs)
    return {"build_ms": program.build_time_ms, "cldnn_py_ms": ours, "onnxruntime_ms": theirs,
            "ratio": ours / theirs}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="+", default=["alexnet", "resnet50"], choices=sorted(ONNX))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)
    engine = cl.Engine()
    print(f"device: {engine.info.name} ({engine.info.platform_version})")
    print(f"{'model':<10} {'build ms':>9} {'cldnn_py ms':>12} {'onnxruntime ms':>15} {'ratio':>7}")
    results = {}
    for name in args.models:
        r = bench(name, engine, args.runs)
        results[name] = r
        print(f"{name:<10} {r['build_ms']:9.0f} {r['cldnn_py_ms']:12.1f} {r['onnxruntime_ms']:15.1f} "
              f"{r['ratio']:7.2f}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
