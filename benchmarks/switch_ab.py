"""A kernel switch on vs off in one process: a module constant of a kernel or pass (``NOPACK_TILES``,
``USE_VECTOR_ROWS``, ``OC_ROWS_GRID_MIN_LANES`` ...) set to another value, the same network built twice (A with the
constant as shipped, B with the new value; the constant is read at build time or at run time, so it is set again
around every run of B), runs alternating in rotating order after a short pause. Prints the median wall times,
their ratio, the kernels whose summed profiled time moved most, and the largest output difference.

    python benchmarks/switch_ab.py MODULE.CONSTANT VALUE [--device cpu] [--models resnet50 ...] [--runs 20] [--batch 8]
    python benchmarks/switch_ab.py kernel_selector.kernels.convolution.cpu_conv_oc.OC_ROWS_GRID_MIN_LANES 2.0

VALUE is a Python literal (``ast.literal_eval``). On this project's noisy 2-core VMs, same-process A/B is the only
comparison worth reporting: separate runs minutes apart moved ±25%. The machine must be otherwise quiet.
"""

from __future__ import annotations

import argparse
import ast
import collections
import contextlib
import importlib
import pathlib
import sys
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fresh_process import zoo_model  # noqa: E402


@contextlib.contextmanager
def switched(module: Any, name: str, value: Any) -> Iterator[None]:
    """``module.name`` set to ``value`` inside the block, restored after."""
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


def kernel_times(net: Any) -> collections.Counter[str]:
    """ms per kernel name in the last run (profiling events)."""
    per: collections.Counter[str] = collections.Counter()
    for e in net.get_profiling_info():
        if e.status == "EXECUTED":
            node = net.program.nodes[e.id]
            per[node.impl.kernel_name if node.impl else node.kind] += e.time_us / 1e3
    return per


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, build, time and print (module docstring)."""
    ap = argparse.ArgumentParser(prog="python benchmarks/switch_ab.py", description=__doc__.split("\n")[0])
    ap.add_argument("constant", help="MODULE.CONSTANT, e.g. kernel_selector.kernels.convolution."
                                     "convolution_kernel_cpu_packed.NOPACK_TILES")
    ap.add_argument("value", help="the value for B, a Python literal")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--models", nargs="+", default=["resnet50", "squeezenet", "shufflenet"],
                    help="zoo model names, or paths of .onnx files")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--batch", type=int, default=1, help="the zoo models' batch size (default 1)")
    args = ap.parse_args(argv)
    import cldnn_py as cl

    mod_name, name = args.constant.rsplit(".", 1)
    module = importlib.import_module(mod_name)
    value = ast.literal_eval(args.value)
    print(f"A: {name} = {getattr(module, name)!r}; B: {name} = {value!r}; device {args.device}")
    engine = cl.Engine(args.device)
    for model in args.models:
        if model.endswith(".onnx"):  # a model file of the user's (its own batch size)
            compare(cl, engine, model, pathlib.Path(model).stem, module, name, value, args.runs)
        else:
            compare(cl, engine, str(zoo_model(model, args.batch)), f"{model} b{args.batch}", module, name, value,
                    args.runs)


def timed_run(nets: tuple[Any, Any], which: int, feeds: dict[str, np.ndarray], module: Any, name: str,
              value: Any) -> tuple[float, dict[str, np.ndarray]]:
    """(ms, outputs) of one run of A (``which`` 0) or B (1, with the constant switched)."""
    with switched(module, name, value) if which else contextlib.nullcontext():
        t = time.perf_counter()
        out = nets[which].run(feeds)
        return (time.perf_counter() - t) * 1e3, out


def compare(cl: Any, engine: Any, path: str, model: str, module: Any, name: str, value: Any, runs: int) -> None:
    """Build A and B of one model, time them alternating and print the comparison."""
    net_a = cl.Network(cl.Program(engine, cl.load_onnx(path)))
    with switched(module, name, value):
        net_b = cl.Network(cl.Program(engine, cl.load_onnx(path)))
    nets = (net_a, net_b)
    feed = net_a.input_ids[0]
    feeds = {feed: np.random.default_rng(0).standard_normal(net_a.program.node(feed).layout().shape)
             .astype(np.float32)}
    first = [np.concatenate([a.ravel() for a in timed_run(nets, i, feeds, module, name, value)[1].values()]).copy()
             for i in (0, 1)]
    diff = float(np.abs(first[0] - first[1]).max() / max(np.abs(first[0]).max(), 1e-30))
    times: list[list[float]] = [[], []]
    kernels: list[collections.defaultdict[str, list[float]]] = [collections.defaultdict(list),
                                                                 collections.defaultdict(list)]
    for i in range(runs):
        for which in ((0, 1) if i % 2 else (1, 0)):
            time.sleep(0.02)
            times[which].append(timed_run(nets, which, feeds, module, name, value)[0])
            for k, v in kernel_times(nets[which]).items():
                kernels[which][k].append(v)
    a, b = float(np.median(times[0])), float(np.median(times[1]))
    print(f"{model:14s} A {a:8.2f} ms  B {b:8.2f} ms  B/A {b / a:.3f}  max rel diff {diff:.1e}")

    def med(which: int, k: str) -> float:
        return float(np.median(kernels[which].get(k, [0.0])))

    for k in sorted(set(kernels[0]) | set(kernels[1]), key=lambda k: -abs(med(1, k) - med(0, k)))[:4]:
        print(f"    {k:40s} A {med(0, k):7.3f}  B {med(1, k):7.3f} ms")


if __name__ == "__main__":
    main()
