"""ResNet-50 Program build time on the pip PoCL: cold (empty kernel binary cache and empty PoCL cache) and warm
(both filled by the cold run), each in a fresh process (issue 7's targets: cold <= 30 s, warm <= 3 s), with PoCL's
cache alone (``CLDNN_PY_BINARY_CACHE=auto``, the default on PoCL) and with program binaries stored (``=1``).

    python benchmarks/build_time.py [--model resnet50]

Each run is ``python -c`` with ``CLDNN_PY_CACHE_DIR`` and ``POCL_CACHE_DIR`` pointing into one temporary folder, so
nothing but those caches is shared. Prints the Program build time (ms), the programs built, how many came from the
binary cache, and the first run (ms; PoCL finishes work-group functions at the first launch).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fresh_process import run_child, zoo_model  # noqa: E402

CHILD = r"""
import json, sys, time
import numpy as np
import cldnn_py as cl
engine = cl.Engine()
topo = cl.load_onnx(sys.argv[1])
t0 = time.perf_counter()
prog = cl.Program(engine, topo)
t1 = time.perf_counter()
net = cl.Network(prog)
x = np.random.default_rng(0).standard_normal(net.get_output_layout(net.input_ids[0]).shape).astype(np.float32)
net.run({net.input_ids[0]: x})
t2 = time.perf_counter()
print(json.dumps({"build_ms": (t1 - t0) * 1e3, "programs": len(prog.cl_programs), "kernels": prog.kernels_built,
                  "cache_hits": prog.binary_cache_hits, "first_run_ms": (t2 - t1) * 1e3}))
"""


def measure(model: pathlib.Path, folder: str, binaries: str) -> dict[str, float]:
    """One fresh interpreter with the two caches under ``folder`` and ``CLDNN_PY_BINARY_CACHE=binaries``."""
    return run_child(CHILD, model, {"CLDNN_PY_CACHE_DIR": os.path.join(folder, "kernels"),
                                    "POCL_CACHE_DIR": os.path.join(folder, "pocl"),
                                    "CLDNN_PY_BINARY_CACHE": binaries}, drop=("CLDNN_PY_NO_CACHE",))


def main(argv: list[str] | None = None) -> int:
    """Make the zoo model if needed, then one cold and two warm builds for each ``--binaries`` setting."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="resnet50")
    ap.add_argument("--binaries", nargs="+", default=["auto", "1"],
                    help="CLDNN_PY_BINARY_CACHE settings to compare (auto: PoCL's cache alone on PoCL; 1: binaries)")
    args = ap.parse_args(argv)
    path = zoo_model(args.model)
    print(f"{'binaries':<9} {'start':<6} {'build ms':>9} {'programs':>9} {'from cache':>11} {'first run ms':>13}")
    for binaries in args.binaries:
        with tempfile.TemporaryDirectory(prefix="build_time_") as folder:
            for name in ("cold", "warm", "warm"):
                r = measure(path, folder, binaries)
                print(f"{binaries:<9} {name:<6} {r['build_ms']:9.0f} {r['programs']:9d} {r['cache_hits']:11d} "
                      f"{r['first_run_ms']:13.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
