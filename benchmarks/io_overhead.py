"""Host overhead of a run's I/O: wall time of one run minus the summed device time of its kernels, with the inputs
fed by copy (``Network.run`` / ``set_input_data``) and bound to user memory (``set_input_memory`` +
``set_output_memory``, docs/zero_copy.md), interleaved in the same process.

    python benchmarks/io_overhead.py [--models resnet50 squeezenet io_heavy] [--devices cl cpu] [--rounds 5]
                                     [--runs 20] [--json out.json]

``resnet50`` and ``squeezenet`` are the zoo models at batch 1 (``.cache/models``, written by cldnn_py.tools.zoo when
missing); ``io_heavy`` is a one-convolution network at batch 8 (8x3x224x224 in, 8x16x112x112 out: 4.8 MB in,
6.4 MB out) where the copies are a large part of the run. Per model, device and mode: the median over ``--rounds``
rounds of each round's median over ``--runs`` runs (and the spread of the round medians). The overhead includes
the input copy, the enqueues, the waits and the output read; the kernel sum is what the profiling events report
(EXECUTED primitives). Where kernels overlap (PoCL's out-of-order queue runs independent kernels at once) the
sum exceeds the device's busy time and wall - sum can go negative; wall - span (first kernel start to last kernel
end) is then the better figure. On the CPU engine kernels run one after the other inside ``execute()``, so the span
also holds the Python between them: there wall - sum is the figure. The machine's noise (2 cores, other
processes) moves single figures by 10-30%: compare modes within one run only. Older commits without
``set_input_memory`` measure the copy mode alone.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import cldnn_py as cl  # noqa: E402


def io_heavy_topology() -> cl.Topology:
    """8x3x224x224 -> 3x3 convolution (16 channels, stride 2) + ReLU: little compute, large input and output."""
    rng = np.random.default_rng(0)
    topo = cl.Topology()
    topo.add(cl.InputLayout("data", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (8, 3, 224, 224))))
    topo.add(cl.Data("w", (rng.standard_normal((16, 3, 3, 3)) * 0.3).astype(np.float32)),
             cl.Data("b", rng.standard_normal(16).astype(np.float32)))
    topo.add(cl.Convolution("conv", "data", weights="w", bias="b", stride=(2, 2), pad=(1, 1)))
    topo.add(cl.Activation("relu", "conv", "relu"))
    return topo


def build(model: str, device: str) -> cl.Network:
    """The network of ``model`` on ``device``."""
    engine = cl.Engine(device)
    if model == "io_heavy":
        return cl.Network(cl.Program(engine, io_heavy_topology()))
    from fresh_process import zoo_model

    return cl.Network(cl.Program(engine, cl.load_onnx(str(zoo_model(model)))))


def _device_ms(net: cl.Network) -> tuple[float, float]:
    """(sum of the kernels' times, span from the first kernel's start to the last one's end) of the last run, ms."""
    info = net.get_profiling_info()  # waits for the events
    executed = {p.id for p in info if p.status == "EXECUTED"}
    evs = [e for i in executed for e in net._insts[i].events if hasattr(e, "profile")]
    span = (max(e.profile.end for e in evs) - min(e.profile.start for e in evs)) / 1e6 if evs else 0.0
    return sum(p.time_us for p in info if p.status == "EXECUTED") / 1e3, span


def measure(net: cl.Network, mode: str, x: np.ndarray, runs: int) -> tuple[float, float, float]:
    """Medians of ``runs`` runs in ``mode`` ("copy" or "bound"), ms: wall, wall - kernel sum, wall - kernel span."""
    name = net.input_ids[0]
    if mode == "bound":
        xa = net.new_input_array(name)
        xa[...] = x
        net.set_input_memory(name, xa)
        outs = {o: net.new_output_array(o) for o in net.output_ids}
        for o, a in outs.items():
            net.set_output_memory(o, a)

        def once() -> None:
            for o in net.execute().values():
                o.numpy()
    else:
        def once() -> None:
            net.run({name: x})
    once()
    walls, over, over_span = [], [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        once()
        wall = (time.perf_counter() - t0) * 1e3
        walls.append(wall)
        total, span = _device_ms(net)
        over.append(wall - total)
        over_span.append(wall - span)
    if mode == "bound":  # back to the network's own buffers, so the next "copy" round measures what it did before
        net.set_input_memory(name, None)
        for o in net.output_ids:
            net.set_output_memory(o, None)
    return float(np.median(walls)), float(np.median(over)), float(np.median(over_span))


def main() -> int:
    """Print, per model and device, wall and overhead (ms) per mode; ``--json`` writes them."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=["resnet50", "squeezenet", "io_heavy"])
    ap.add_argument("--devices", nargs="+", default=["cl", "cpu"])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--json")
    args = ap.parse_args()
    modes = ["copy", "bound"] if hasattr(cl.Network, "set_input_memory") else ["copy"]
    report = []
    for model in args.models:
        for device in args.devices:
            net = build(model, device)
            name = net.input_ids[0]
            x = np.random.default_rng(1).standard_normal(net.program.node(name).layout().shape).astype(np.float32)
            for _ in range(5):
                net.run({name: x})
            res: dict[str, list[tuple[float, float, float]]] = {m: [] for m in modes}
            for _ in range(args.rounds):
                for m in modes:
                    res[m].append(measure(net, m, x, args.runs))
            for m in modes:
                walls = [w for w, _, _ in res[m]]
                over = [o for _, o, _ in res[m]]
                over_span = [o for _, _, o in res[m]]
                row = {"model": model, "device": device, "mode": m, "wall_ms": float(np.median(walls)),
                       "overhead_ms": float(np.median(over)), "overhead_min_ms": min(over),
                       "overhead_max_ms": max(over), "overhead_span_ms": float(np.median(over_span))}
                report.append(row)
                spread = f"{row['overhead_min_ms']:.3f}-{row['overhead_max_ms']:.3f}"
                print(f"{model:10s} {device:4s} {m:5s} wall {row['wall_ms']:8.3f} ms  wall-sum "
                      f"{row['overhead_ms']:6.3f} ms (rounds {spread})  wall-span {row['overhead_span_ms']:6.3f} ms",
                      flush=True)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
