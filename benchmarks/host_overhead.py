"""Host cost of one run: wall time of ``Network.run`` (back to back, median of 20) against the device span (first
kernel start to last kernel end, from the profiling events) and the sum of kernel times.

    python benchmarks/host_overhead.py MODEL.onnx [--device cl]

wall − span is what the host adds around the device's work (input copy, enqueue before the first kernel starts,
output read); span − kernel sum is the device's idle time between commands (PoCL: 15-25 µs per command).
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> int:
    """Print wall, span and kernel sum in ms, and the kernel count."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--device", default="cl")
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    import cldnn_py as cl

    net = cl.Network(cl.Program(cl.Engine(args.device), cl.load_onnx(args.model)))
    name = net.input_ids[0]
    x = np.random.default_rng(0).standard_normal(net.program.node(name).layout().shape).astype(np.float32)
    for _ in range(10):
        net.run({name: x})
    walls, spans, sums = [], [], []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        net.run({name: x})
        walls.append((time.perf_counter() - t0) * 1e3)
        info = net.get_profiling_info()
        sums.append(sum(p.time_us for p in info if p.status == "EXECUTED") / 1e3)
        evs = [e for inst in net._insts.values() for e in inst.events if hasattr(e, "profile")]
        if evs:
            spans.append((max(e.profile.end for e in evs) - min(e.profile.start for e in evs)) / 1e6)
    span = f"{np.median(spans):.2f}" if spans else "n/a"
    print(f"wall {np.median(walls):.2f} ms, device span {span} ms, kernel sum {np.median(sums):.2f} ms, "
          f"{sum(1 for p in net.get_profiling_info() if p.status == 'EXECUTED')} kernels")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
