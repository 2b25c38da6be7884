"""What the graph optimizer buys, on the zoo's real graphs: kernels executed, reorders between convolutions,
activation memory against the largest single activation, and the speed-up over the unoptimized graph.

    python benchmarks/optimizer.py [--models resnet50 alexnet googlenet] [--runs 5] [--json out.json]

Both builds of a model run in the same process on the same input (interleaved), batch 1; latency is the median
wall time of ``Network.run`` in ms.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import cldnn_py as cl  # noqa: E402
from cldnn_py.tools import zoo  # noqa: E402


def _reorders_between_convs(net: cl.Network) -> int:
    """Executed reorders whose input chain comes from a convolution and whose output feeds a convolution."""
    count = 0
    for node in net.program.order:
        if node.kind == "reorder" and node.impl is not None and node.dependencies and node.users:
            if node.dependencies[0].kind == "convolution" and any(u.kind == "convolution" for u in node.users):
                count += 1
    return count


def _largest_activation(net: cl.Network) -> int:
    return max(n.layout().bytes for n in net.program.order if n.kind not in ("data",))


def measure(name: str, engine: cl.Engine, runs: int) -> dict[str, float]:
    """Figures for one model (optimized and not)."""
    model = zoo.make_model(name)
    shape = zoo.input_shape(name)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    feeds = {zoo.input_name(name): x}
    nets = {}
    for opt in (True, False):
        topo = cl.load_onnx(model)
        nets[opt] = cl.Network(cl.Program(engine, topo, cl.BuildOptions(optimize_data=opt)))
        nets[opt].run(feeds)
    times: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(runs):
        for opt in (True, False):
            t0 = time.perf_counter()
            nets[opt].run(feeds)
            times[opt].append((time.perf_counter() - t0) * 1e3)
    out = {}
    for opt, tag in ((True, "opt"), (False, "ref")):
        info = nets[opt].get_profiling_info()
        out[f"{tag}_kernels"] = sum(1 for p in info if p.status == "EXECUTED")
        out[f"{tag}_ms"] = float(np.median(times[opt]))
    mem = nets[True].memory_info()
    out["activation_bytes"] = mem["activations"]
    out["largest_activation_bytes"] = _largest_activation(nets[True])
    out["memory_ratio"] = mem["activations"] / out["largest_activation_bytes"]
    out["reorders_between_convs"] = _reorders_between_convs(nets[True])
    out["speedup"] = out["ref_ms"] / out["opt_ms"]
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the table (and write JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="+", default=["resnet50", "alexnet", "googlenet"], choices=zoo.MODELS)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    engine = cl.Engine()
    print(f"device: {engine.info.name} ({engine.info.platform_version})")
    print(f"{'model':<12} {'kernels opt/ref':>16} {'conv-reorders':>14} {'act MiB':>8} {'x largest':>10} "
          f"{'opt ms':>8} {'ref ms':>8} {'speed-up':>9}")
    res = {}
    for name in args.models:
        r = measure(name, engine, args.runs)
        res[name] = r
        print(f"{name:<12} {r['opt_kernels']:>7}/{r['ref_kernels']:<8} {r['reorders_between_convs']:>14} "
              f"{r['activation_bytes'] / 2**20:8.1f} {r['memory_ratio']:10.2f} {r['opt_ms']:8.1f} "
              f"{r['ref_ms']:8.1f} {r['speedup']:9.2f}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
