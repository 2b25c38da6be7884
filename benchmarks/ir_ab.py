"""An emission-time switch of the GEMM micro-kernel on against off, in one process, inside whole networks.

``switch_ab.py`` compares module constants that the kernels read at build or run time. A change to the LLVM IR of
:mod:`kernel_selector.common.cpu_microkernel` (a prefetch, a store form) is fixed when numba compiles
``convolution_cpu_packed._gemm_tiles``, so the old and the new form could only be compared across two processes,
minutes apart, which on this project's VMs drift by ±25% (a two-line prefetch measured 0.6-0.7× that way was
1.00× here). This script compiles a second copy of ``_gemm_tiles`` whose micro-kernel was emitted with the
switch off, builds each network once, and swaps the module's ``_gemm_tiles`` between runs (the kernels look it up
at call time), alternating the order every round.

    python benchmarks/ir_ab.py FLAG [--models squeezenet resnet50] [--batch 8] [--runs 15]

FLAG names a module-level boolean of ``cpu_microkernel`` that ``_emit_micro`` reads (add one around the code under
test, default True = the new form). Prints per network the median wall times, the median and quartiles of the
per-round ratios new/old, and whether both gave identical outputs. The machine must be otherwise quiet.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
import types

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fresh_process import zoo_model  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    """Parse, compile the two forms, time and print (module docstring)."""
    ap = argparse.ArgumentParser(prog="python benchmarks/ir_ab.py", description=__doc__.split("\n")[0])
    ap.add_argument("flag", help="a module-level boolean of kernel_selector.common.cpu_microkernel")
    ap.add_argument("--models", nargs="+", default=["squeezenet", "resnet50"])
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args(argv)
    import numba
    import onnx

    import cldnn_py as cl
    import kernel_selector.common.cpu_microkernel as mk
    import kernel_selector.kernels.convolution.convolution_kernel_cpu_packed as pk

    if not isinstance(getattr(mk, args.flag, None), bool):
        raise SystemExit(f"cpu_microkernel has no boolean {args.flag!r}: add one that _emit_micro reads")
    setattr(mk, args.flag, False)
    old_mk = mk.make_micro_kernel(mk.MR, mk.NV, mk.W)
    glb = dict(pk._gemm_tiles.py_func.__globals__)
    glb["micro_kernel"] = old_mk
    old = numba.njit(parallel=True, fastmath=True)(types.FunctionType(pk._gemm_tiles.py_func.__code__, glb,
                                                                      "_gemm_tiles_old"))
    setattr(mk, args.flag, True)
    new = pk._gemm_tiles
    engine = cl.Engine("cpu")
    for model in args.models:
        path = str(zoo_model(model, args.batch))
        graph = onnx.load(path).graph
        shape = [d.dim_value for d in graph.input[0].type.tensor_type.shape.dim]
        feeds = {graph.input[0].name: np.random.default_rng(0).standard_normal(shape).astype(np.float32)}
        net = cl.Network(cl.Program(engine, cl.load_onnx(path)))
        outs = []
        for fn in (new, old):
            pk._gemm_tiles = fn
            outs.append(np.concatenate([a.ravel() for a in net.run(feeds).values()]).copy())
        ratios, t_new, t_old = [], [], []
        for r in range(args.runs):
            pair = {}
            for name, fn in ((("new", new), ("old", old)) if r % 2 else (("old", old), ("new", new))):
                pk._gemm_tiles = fn
                time.sleep(0.02)
                t = time.perf_counter()
                net.run(feeds)
                pair[name] = time.perf_counter() - t
            ratios.append(pair["new"] / pair["old"])
            t_new.append(pair["new"])
            t_old.append(pair["old"])
        pk._gemm_tiles = new
        q1, q3 = np.percentile(ratios, 25), np.percentile(ratios, 75)
        print(f"{model} b{args.batch} {args.flag}: new {np.median(t_new) * 1e3:.1f} ms, "
              f"old {np.median(t_old) * 1e3:.1f} ms, new/old {np.median(ratios):.3f} [{q1:.3f}-{q3:.3f}], "
              f"identical outputs {np.array_equal(outs[0], outs[1])}", flush=True)


if __name__ == "__main__":
    main()
