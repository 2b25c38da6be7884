"""Winograd F(4×4, 3×3) on vs off, the same network built twice in one process (``winograd_convolutions`` with its
rules, and with no convolution rewritten), runs alternating; prints the median wall times, their ratio, how many
layers were rewritten and the largest difference of the first output relative to its largest value.

    python benchmarks/winograd_ab.py [--device cpu] [--models resnet50 vgg19 ...] [--runs 10]

The machine must be quiet (2 cores): nothing else running. Zoo models are written to ``.cache/models`` when missing
(seeded weights).
"""

from __future__ import annotations

import argparse
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
    args = ap.parse_args(argv)

    import onnx

    import cldnn_py as cl
    from cldnn_py.passes import winograd_convolutions as wc

    eng = cl.Engine(args.device)
    print(f"device {args.device}: {eng.info.name}; ratio = Winograd / direct wall time (median of {args.runs})")
    for name in args.models:
        path = zoo_model(name)
        g = onnx.load(str(path)).graph
        shape = [d.dim_value for d in g.input[0].type.tensor_type.shape.dim]
        feeds = {g.input[0].name: np.random.default_rng(0).standard_normal(shape).astype(np.float32)}
        nets = {"winograd": cl.Network(cl.Program(eng, cl.load_onnx(str(path))))}
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
        for _ in range(args.runs):
            for k, n in nets.items():
                t0 = time.perf_counter()
                n.run(feeds)
                walls[k].append(time.perf_counter() - t0)
                time.sleep(0.02)
        w, d = (float(np.median(walls[k])) * 1e3 for k in ("winograd", "direct"))
        print(f"{name:14s} {layers:3d} Winograd layers: {w:8.1f} ms vs {d:8.1f} ms direct ({w / d:.2f}x), "
              f"rel. diff {diff:.1e}")


if __name__ == "__main__":
    main()
