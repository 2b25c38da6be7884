"""Winograd F(4×4, 3×3) on vs off, the same network built twice in one process (``winograd_convolutions`` with its
rules, and with no convolution rewritten), runs alternating (the order swapped every round); prints the median wall
times, their ratio, how many layers were rewritten and the largest difference of the first output relative to its
largest value. ``--layers``: the rule is off in both builds (every eligible 3×3 layer rewritten in the first), and
each such layer's time is printed, the three Winograd kernels' sum against the direct kernel (medians of the
profiled runs), with C·OC / (C + OC), the quantity the CPU engine's rule bounds.

    python benchmarks/winograd_ab.py [--device cpu] [--models resnet50 vgg19 ...] [--batch 1] [--runs 10] [--layers]

The machine must be quiet (2 cores): nothing else running. Zoo models are written to ``.cache/models`` when missing
(seeded weights).
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fresh_process import zoo_model  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python benchmarks/winograd_ab.py", description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cpu", help="cpu (the CPU engine) or an OpenCL device cl:P:D")
    ap.add_argument("--models", nargs="+", default=["resnet50", "vgg19", "googlenet", "inception_v2", "densenet121"])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--batch", type=int, default=1, help="batch size of the zoo models (default 1)")
    ap.add_argument("--layers", action="store_true", help="per-layer times, every eligible layer rewritten")
    args = ap.parse_args(argv)

    import onnx

    import cldnn_py as cl
    from cldnn_py.passes import winograd_convolutions as wc

    eng = cl.Engine(args.device)
    print(f"device {args.device}: {eng.info.name}; ratio = Winograd / direct wall time (median of {args.runs})")
    for name in args.models:
        path = zoo_model(name, args.batch)
        g = onnx.load(str(path)).graph
        shape = [d.dim_value for d in g.input[0].type.tensor_type.shape.dim]
        feeds = {g.input[0].name: np.random.default_rng(0).standard_normal(shape).astype(np.float32)}
        keep_rule = wc.min_macs_per_value_plain
        if args.layers:
            wc.min_macs_per_value_plain = lambda n_tiles, lanes: 0  # every eligible layer
        try:
            nets = {"winograd": cl.Network(cl.Program(eng, cl.load_onnx(str(path))))}
        finally:
            wc.min_macs_per_value_plain = keep_rule
        keep = wc.MIN_TILES
        wc.MIN_TILES = 1 << 62  # no convolution has that many tiles: the pass rewrites none
        try:
            nets["direct"] = cl.Network(cl.Program(eng, cl.load_onnx(str(path))))
        finally:
            wc.MIN_TILES = keep
        layers = sum(1 for n in nets["winograd"].program.order if n.kind == "winograd_output")
        outs = {k: n.run(feeds) for k, n in nets.items()}
        first = next(iter(outs["direct"]))
        ref = outs["direct"][first]
        diff = float(np.abs(outs["winograd"][first] - ref).max() / max(float(np.abs(ref).max()), 1e-30))
        for n in nets.values():
            for _ in range(3):
                n.run(feeds)
        walls: dict[str, list[float]] = {k: [] for k in nets}
        per_layer: dict[str, dict[str, list[float]]] = {k: collections.defaultdict(list) for k in nets}
        for r in range(args.runs):
            for k in (["winograd", "direct"] if r % 2 == 0 else ["direct", "winograd"]):
                t0 = time.perf_counter()
                nets[k].run(feeds)
                walls[k].append(time.perf_counter() - t0)
                if args.layers:  # a layer's id is the prefix of its Winograd nodes' ids (conv__winograd_v, ...)
                    acc: dict[str, float] = collections.defaultdict(float)
                    for p in nets[k].get_profiling_info():
                        if p.status == "EXECUTED":
                            acc[p.id.split("__winograd_")[0]] += p.time_us / 1e3
                    for i, t in acc.items():
                        per_layer[k][i].append(t)
                time.sleep(0.02)
        w, d = (float(np.median(walls[k])) * 1e3 for k in ("winograd", "direct"))
        print(f"{name:14s} {layers:3d} Winograd layers: {w:8.1f} ms vs {d:8.1f} ms direct ({w / d:.2f}x), "
              f"rel. diff {diff:.1e}")
        if args.layers:
            prog = nets["winograd"].program
            for node in prog.order:
                if node.kind != "winograd_output":
                    continue
                x = prog.node(f"{node.id}__winograd_v").dependencies[0].layout()
                c, (nb, oc, oh, ow) = x.shape[1], node.layout().shape
                tw, td = (float(np.median(per_layer[k][node.id])) for k in ("winograd", "direct"))
                n_tiles = nb * ((oh + 3) // 4) * ((ow + 3) // 4)
                print(f"  {node.id:18s} {c:4d} -> {oc:4d} at {oh}x{ow}, {n_tiles:5d} tiles, "
                      f"C*OC/(C+OC) {c * oc / (c + oc):6.1f}: {tw:7.3f} ms vs {td:7.3f} ms direct ({tw / td:.2f}x)")


if __name__ == "__main__":
    main()
