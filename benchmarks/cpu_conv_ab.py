"""``convolution_cpu_packed`` on isolated layers, the kernel as shipped (A) against the same kernel with module
constants switched (B, C ...), runs interleaved in one process; bias and relu fused, bfyx data, os_iyx_osv16
weights (the CPU engine's network case). Prints each variant's median time and GFLOP/s per layer, after checking
that every variant gives A's output.

    python benchmarks/cpu_conv_ab.py --shapes 3x3_64_56 128,56,32,3,1,1 \\
        --variant 'np16:kernel_selector.kernels.convolution.convolution_kernel_cpu_packed.NOPACK_TILES=16'

A shape is a name of ``benchmarks/cpu_kernels.py`` (ResNet-50's) or ``C,HW,OC,K,STRIDE,PAD``. A variant is
``NAME:MODULE.CONSTANT=VALUE[;MODULE.CONSTANT=VALUE...]`` (VALUE a Python expression); its constants are set while
the kernel is built and around each of its runs, so constants read at build time and at run time both count.
Unset ``OPENBLAS_CORETYPE`` / ``OPENBLAS_L2_SIZE`` first, as for cpu_kernels.py; the machine must be quiet.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import pathlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cpu_kernels as ck  # noqa: E402


def parse_variant(spec: str) -> tuple[str, list[tuple[Any, str, Any]]]:
    """(name, [(module, constant, value)]) of ``NAME:MODULE.CONSTANT=VALUE;...``."""
    name, sets = spec.split(":", 1)
    out = []
    for item in sets.split(";"):
        target, value = item.split("=", 1)
        mod, attr = target.rsplit(".", 1)
        out.append((importlib.import_module(mod), attr, eval(value)))  # noqa: S307 - the user's own command line
    return name, out


@contextlib.contextmanager
def applied(sets: list[tuple[Any, str, Any]]) -> Iterator[None]:
    """The variant's constants set inside the block, restored after."""
    old = [(m, a, getattr(m, a)) for m, a, _ in sets]
    for m, a, v in sets:
        setattr(m, a, v)
    try:
        yield
    finally:
        for m, a, v in old:
            setattr(m, a, v)


def shape_of(spec: str) -> tuple[int, int, int, int, int, int]:
    """(C, HW, OC, K, stride, pad) of a cpu_kernels.py name or ``C,HW,OC,K,STRIDE,PAD``."""
    if spec in ck.SHAPES:
        return ck.SHAPES[spec][:6]
    c, hw, oc, k, s, p = (int(v) for v in spec.split(","))
    return c, hw, oc, k, s, p


def main(argv: list[str] | None = None) -> None:
    """Parse, check, time, print (module docstring)."""
    ap = argparse.ArgumentParser(prog="python benchmarks/cpu_conv_ab.py", description=__doc__.split("\n")[0])
    ap.add_argument("--variant", action="append", default=[], help="NAME:MODULE.CONSTANT=VALUE[;...] (repeatable)")
    ap.add_argument("--shapes", nargs="+", default=["3x3_64_56", "1x1_1024_256_14", "1x1_512_2048_7"])
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args(argv)
    variants = [("as-shipped", [])] + [parse_variant(v) for v in args.variant]
    rng = np.random.default_rng(0)
    for spec in args.shapes:
        c, hw, oc, k, s, p = shape_of(spec)
        x = rng.standard_normal((1, c, hw, hw)).astype(np.float32)
        w = (rng.standard_normal((oc, c, k, k)) / np.sqrt(c * k * k)).astype(np.float32)
        b = rng.standard_normal(oc).astype(np.float32)
        params = ck.make_params(c, hw, oc, k, s, p, False, packed=True)
        runs: list[Callable[[], None]] = []
        want = None
        for _, sets in variants:
            with applied(sets):
                run, read = ck.kernel_runner("convolution_cpu_packed", params, [x, w, b])
                run()
                got = read().astype(np.float64)
            want = got if want is None else want
            err = np.abs(got - want).max() / max(np.abs(want).max(), 1e-30)
            assert err < 1e-4, f"{spec}: a variant's output differs from as-shipped by {err:.1e} (relative)"

            def timed(run: Callable[[], None] = run, sets: list[tuple[Any, str, Any]] = sets) -> None:
                with applied(sets):
                    run()
            runs.append(timed)
        for r in runs:
            for _ in range(3):
                r()
        times: list[list[float]] = [[] for _ in runs]
        for _ in range(args.runs):
            for i, r in enumerate(runs):
                t = time.perf_counter()
                r()
                times[i].append(time.perf_counter() - t)
        oh = (hw + 2 * p - k) // s + 1
        gflop = 2.0 * oc * c * k * k * oh * oh / 1e9
        cells = [f"{n}: {np.median(t) * 1e3:7.3f} ms {gflop / np.median(t):5.0f} GF/s"
                 for (n, _), t in zip(variants, times)]
        print(f"{spec:20s} " + "  ".join(cells), flush=True)


if __name__ == "__main__":
    main()
