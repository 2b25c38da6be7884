"""Convolutions with the channel counts real models use (MobileNetV2/V3, EfficientNet, ShuffleNet: 8-960 channels,
most not a multiple of 16), isolated, on one device: the median kernel time and GFLOP/s of each, slowest rate first,
so that a cliff (a shape far below its neighbours) stands out.

    python benchmarks/conv_channel_sweep.py [--device cl:1:0 | cpu] [--kernel 1 3] [--runs 15] [--tuning off]

Each layer is a Topology of its own (input reordered to b_fs_yx_fsv16 on OpenCL devices, as the layout optimizer
would; bfyx on the CPU engine), bias-free, ReLU fused, batch 1, seeded data. Found this way (2026-12-07, pip PoCL):
PoCL spilled the unrolled 16 + 8 channel steps of a 24-channel 1×1 layer (0.49 ms, now 0.12: ``IC_REM_ROLLED``); on
the CPU engine a 20 → 113-channel layer ran 0.55 or 0.11 ms by buffer placement (edge rows: ``row_store``). The
machine must be quiet: nothing else running.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

# (input channels, output channels, map size): expansions, projections and square layers of the mobile families
SHAPES = [(8, 48, 56), (12, 72, 56), (16, 96, 56), (20, 120, 56), (24, 144, 56), (144, 24, 56), (32, 192, 28),
          (40, 240, 28), (240, 40, 28), (48, 288, 28), (56, 336, 28), (72, 432, 14), (80, 480, 14), (480, 80, 14),
          (96, 576, 14), (112, 672, 14), (672, 112, 14), (120, 720, 14), (160, 960, 7), (960, 160, 7), (184, 184, 14),
          (200, 200, 14), (24, 24, 56), (40, 40, 28), (80, 80, 14), (136, 136, 28), (36, 36, 28), (60, 60, 28),
          (100, 100, 14), (20, 113, 56)]


def time_layer(engine: object, c: int, oc: int, hw: int, k: int, runs: int, tuning: str) -> tuple[float, str]:
    """(median device ms of the convolution over ``runs`` runs, the kernel that ran) of one layer."""
    import cldnn_py as cl

    shape = (1, c, hw, hw)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    w = (np.random.default_rng(1).standard_normal((oc, c, k, k)) * 0.1).astype(np.float32)
    blocked = engine.kind == "ocl"  # type: ignore[attr-defined]
    src = cl.Reorder("xb", "x", cl.Format.b_fs_yx_fsv16) if blocked else cl.Activation("xb", "x", "relu")
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape)), cl.Data("w", w), src,
                       cl.Convolution("c", "xb", weights="w", pad=(k // 2, k // 2)), cl.Activation("r", "c", "relu"))
    net = cl.Network(cl.Program(engine, topo, cl.BuildOptions(tuning=tuning)))  # type: ignore[arg-type]
    times = []
    for _ in range(runs):
        net.run({"x": x})
        times += [p.time_us / 1e3 for p in net.get_profiling_info() if p.id == "c"]
    return float(np.median(times)), net.program.node("c").impl.kernel_name


def main(argv: list[str] | None = None) -> None:
    """Time every shape of SHAPES for each ``--kernel`` size; print the rows slowest rate first."""
    ap = argparse.ArgumentParser(prog="python benchmarks/conv_channel_sweep.py", description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cl:1:0", help="cl:P:D or cpu (default cl:1:0)")
    ap.add_argument("--kernel", type=int, nargs="+", default=[1], help="filter sizes k (k x k, pad k // 2)")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--tuning", default="off", choices=["off", "cache"], help="BuildOptions.tuning (default off)")
    args = ap.parse_args(argv)

    import cldnn_py as cl

    engine = cl.Engine(args.device)
    rows = []
    for k in args.kernel:
        for c, oc, hw in SHAPES:
            ms, kernel = time_layer(engine, c, oc, hw, k, args.runs, args.tuning)
            rate = 2 * c * oc * hw * hw * k * k / ms / 1e6
            line = f"{c:4d} -> {oc:4d} at {hw:3d}x{hw:<3d} k{k}: {ms:7.3f} ms {rate:6.0f} GFLOP/s  {kernel}"
            rows.append((rate, line))
    print(f"device {args.device}: {engine.info.name}; median of {args.runs} runs, slowest rate first")
    for _, line in sorted(rows):
        print(line)


if __name__ == "__main__":
    main()
