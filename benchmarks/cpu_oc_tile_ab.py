"""The CPU engine's channel-vector tiles as shipped (A) against another tile shape (B), one network built twice, runs
alternating in one process; prints the median wall times, their ratio and the layers whose profiled time moved most.

    python benchmarks/cpu_oc_tile_ab.py --tile 8,1 --models squeezenet --batch 8
    python benchmarks/cpu_oc_tile_ab.py --tile 7,2 --models resnet50 path/to/model.onnx

A tile is MR pixels × NV vectors of the host's float width (``cpu_microkernel_oc.make_micro_kernel_oc``). Tile shapes
are compiled into numba's cached kernels (their IR is generated when ``cpu_conv_oc.oc_tiles`` / ``oc_row_tiles`` are
compiled), so a module constant cannot switch them at run time as ``benchmarks/switch_ab.py`` does for the run-time
switches; B is a second, uncached dispatcher of each of the two loops whose globals name the other tile (for every
layer, whatever ``cpu_conv_oc.alt_tile`` picks in A). The machine must be otherwise quiet.
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import sys
import time
import types
from typing import Any

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fresh_process import zoo_model  # noqa: E402


def variant_loops(mr: int, nv: int) -> dict[str, Any]:
    """{"oc_tiles": ..., "oc_row_tiles": ...}: the two channel-vector loops compiled with an mr × nv tile (and an
    mr × one-panel tile for the last panel of an odd count)."""
    import numba

    from kernel_selector.common import cpu_microkernel_oc as mo
    from kernel_selector.common.cpu_microkernel import PANEL, W
    from kernel_selector.common.elementwise_numba import NJIT
    from kernel_selector.kernels.convolution import cpu_conv_oc as co

    opts = {k: v for k, v in NJIT.items() if k != "cache"}
    main, rows = mo.make_micro_kernel_oc(mr, nv, W), mo.make_micro_kernel_oc_rows(mr, nv, W)
    one, one_rows = mo.make_micro_kernel_oc(mr, PANEL // W, W), mo.make_micro_kernel_oc_rows(mr, PANEL // W, W)

    @numba.njit(**opts)
    def tile_of(alt: int) -> tuple[int, int]:  # pragma: no cover - numba
        return mr, nv * W

    out = {}
    for name in ("oc_tiles", "oc_row_tiles"):
        f = getattr(co, name).py_func
        g = dict(f.__globals__, micro_kernel_oc=main, micro_kernel_oc_panel=one, micro_kernel_oc_alt=main,
                 micro_kernel_oc_rows=rows, micro_kernel_oc_rows_panel=one_rows, micro_kernel_oc_rows_alt=rows,
                 tile_of=tile_of)
        out[name] = numba.njit(parallel=True, **opts)(types.FunctionType(f.__code__, g, f.__name__, f.__defaults__))
    return out


def compare(cl: Any, path: str, label: str, tile: tuple[int, int], runs: int, top: int = 6) -> None:
    """Build A and B of one model, time them alternating and print the comparison (the ``top`` layers whose median
    time moved most)."""
    from kernel_selector.kernels.convolution import convolution_kernel_cpu_packed as pk

    shipped = {"oc_tiles": pk.oc_tiles, "oc_row_tiles": pk.oc_row_tiles}
    other = variant_loops(*tile)

    def use(loops: dict[str, Any]) -> None:
        for k, v in loops.items():
            setattr(pk, k, v)

    engine = cl.Engine("cpu")
    nets = (cl.Network(cl.Program(engine, cl.load_onnx(path))), cl.Network(cl.Program(engine, cl.load_onnx(path))))
    feed = nets[0].input_ids[0]
    x = np.random.default_rng(0).standard_normal(nets[0].program.node(feed).layout().shape).astype(np.float32)
    try:
        outs = []
        for which in (0, 1):
            use(other if which else shipped)
            outs.append(nets[which].run({feed: x}))
        diff = max(float(np.abs(outs[0][k] - outs[1][k]).max()) for k in outs[0])
        times: list[list[float]] = [[], []]
        per: list[collections.defaultdict[str, list[float]]] = [collections.defaultdict(list),
                                                                 collections.defaultdict(list)]
        for i in range(runs):
            for which in ((0, 1) if i % 2 else (1, 0)):
                use(other if which else shipped)
                t = time.perf_counter()
                nets[which].run({feed: x})
                times[which].append((time.perf_counter() - t) * 1e3)
                for e in nets[which].get_profiling_info():
                    if e.status == "EXECUTED":
                        per[which][e.id].append(e.time_us / 1e3)
    finally:
        use(shipped)
    a, b = float(np.median(times[0])), float(np.median(times[1]))
    print(f"{label:16s} A (shipped) {a:8.2f} ms  B ({tile[0]}x{tile[1]}) {b:8.2f} ms  B/A {b / a:.3f}  "
          f"max abs diff {diff:.1e}")
    for k in sorted(per[0], key=lambda k: -abs(np.median(per[1][k]) - np.median(per[0][k])))[:top]:
        print(f"    {k:20s} A {np.median(per[0][k]):7.3f}  B {np.median(per[1][k]):7.3f} ms")


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, build, time and print (module docstring)."""
    ap = argparse.ArgumentParser(prog="python benchmarks/cpu_oc_tile_ab.py", description=__doc__.split("\n")[0])
    ap.add_argument("--tile", default="8,1", help="B's tile: MR,NV (pixels, vectors of channels; default 8,1)")
    ap.add_argument("--models", nargs="+", default=["resnet50", "squeezenet"], help="zoo names or .onnx paths")
    ap.add_argument("--batch", type=int, default=1, help="the zoo models' batch size (default 1)")
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--top", type=int, default=6, help="layers to list, those whose time moved most (default 6)")
    args = ap.parse_args(argv)
    mr, nv = (int(v) for v in args.tile.split(","))
    import cldnn_py as cl

    for model in args.models:
        if model.endswith(".onnx"):
            compare(cl, model, pathlib.Path(model).stem, (mr, nv), args.runs, args.top)
        else:
            compare(cl, str(zoo_model(model, args.batch)), f"{model} b{args.batch}", (mr, nv), args.runs, args.top)


if __name__ == "__main__":
    main()
