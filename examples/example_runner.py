"""The command line shared by the Topology-API examples (alexnet.py, resnet50.py): build the network, run it
``--runs`` times after a warm-up, print the device, the build time, the latency (ms), the top-5 classes and the
slowest primitives."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import cldnn_py as cl
from cldnn_py.input_files import load_array_dict


def run_example(doc: str, build: Callable[..., tuple[cl.Topology, Any]], input_shape: tuple[int, ...],
                outputs: list[str], argv: list[str] | None = None) -> None:
    """Parse ``--weights/--runs/--device``, build ``build(1, weights)`` with ``outputs`` on the device, run a seeded
    N(0, 1) image of ``(1, *input_shape)`` and print what the module docstring says."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--weights", help=".npz with the Data arrays by id (default: seeded random)")
    ap.add_argument("--runs", type=int, default=10, help="timed runs after one warm-up (default 10)")
    ap.add_argument("--device", help="OpenCL device spec cl:P:D (default: CLDNN_PY_DEVICE or the first)")
    args = ap.parse_args(argv)

    # never unpickled; a pickled or unreadable file raises InputFileError naming it
    weights = load_array_dict(args.weights) if args.weights else None
    topo, _ = build(1, weights)
    engine = cl.Engine(args.device)
    print(f"device: {engine.info.name} ({engine.info.platform_version})")
    program = cl.Program(engine, topo, cl.BuildOptions(outputs=outputs))
    print(f"program build: {program.build_time_ms:.0f} ms ({program.kernels_built} kernels)")

    net = cl.Network(program)
    image = np.random.default_rng(1).standard_normal((1, *input_shape)).astype(np.float32)
    net.run({"data": image})  # warm-up
    times = []
    for _ in range(max(args.runs, 1)):
        t0 = time.perf_counter()
        prob = net.run({"data": image})["prob"][0]
        times.append((time.perf_counter() - t0) * 1e3)
    print(f"latency (batch 1): median {np.median(times):.1f} ms, min {min(times):.1f} ms over {len(times)} runs")

    print("top-5:", ", ".join(f"{c} ({prob[c]:.4f})" for c in np.argsort(prob)[::-1][:5]))
    print("slowest primitives:")
    for e in sorted(net.get_profiling_info(), key=lambda e: -e.time_us)[:10]:
        print(f"  {e.id:<24} {e.type:<16} {e.kernel:<28} {e.time_us / 1e3:8.3f} ms")
