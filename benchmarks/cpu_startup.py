"""Cold and warm start of the CPU engine: ResNet-50 (zoo graph, batch 1) Program build and first run, in fresh
processes, with an empty numba cache (cold) and then the same cache again (warm).

    python benchmarks/cpu_startup.py [--model resnet50]

numba compiles a CPU kernel at its first call and, with ``cache=True``, stores the machine code under
``NUMBA_CACHE_DIR`` (cldnn_py sets ``<platformdirs user cache>/cldnn_py/numba`` when unset); a warm process loads it.
Each measurement runs in its own interpreter (``python -c``), so nothing is shared but the cache folder. Prints, per
start: import time, Program build (ms), first ``Network.run`` (ms, includes numba's compile or cache load), and a
second run (ms) for reference.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fresh_process import run_child, zoo_model  # noqa: E402

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import cldnn_py as cl
t1 = time.perf_counter()
engine = cl.Engine("cpu")
topo = cl.load_onnx(sys.argv[1])
t2 = time.perf_counter()
prog = cl.Program(engine, topo)
t3 = time.perf_counter()
net = cl.Network(prog)
x = np.random.default_rng(0).standard_normal(net.get_output_layout(net.input_ids[0]).shape).astype(np.float32)
net.run({net.input_ids[0]: x})
t4 = time.perf_counter()
net.run({net.input_ids[0]: x})
t5 = time.perf_counter()
print(json.dumps({"import_ms": (t1 - t0) * 1e3, "build_ms": (t3 - t2) * 1e3, "first_run_ms": (t4 - t3) * 1e3,
                  "second_run_ms": (t5 - t4) * 1e3}))
"""


def measure(model: pathlib.Path, cache_dir: str) -> dict[str, float]:
    """One fresh interpreter with ``NUMBA_CACHE_DIR=cache_dir``; its timings in ms."""
    return run_child(CHILD, model, {"NUMBA_CACHE_DIR": cache_dir})


def main(argv: list[str] | None = None) -> int:
    """Make the zoo model if needed, then one cold and one warm start."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="resnet50")
    args = ap.parse_args(argv)
    path = zoo_model(args.model)
    with tempfile.TemporaryDirectory(prefix="numba_cache_") as cache:
        cold = measure(path, cache)
        warm = measure(path, cache)
    print(f"{'start':<6} {'import ms':>10} {'build ms':>9} {'first run ms':>13} {'second run ms':>14}")
    for name, r in (("cold", cold), ("warm", warm)):
        print(f"{name:<6} {r['import_ms']:10.0f} {r['build_ms']:9.0f} {r['first_run_ms']:13.0f} "
              f"{r['second_run_ms']:14.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
