"""Start-up of a model in fresh processes (issue 19): cldnn_py cold (empty caches), from the warm-start cache, and
from a saved program file (``Program.load``), against onnxruntime's session creation and OpenVINO's
``compile_model`` (without and with its ``CACHE_DIR``; skipped when openvino is not installed), same model.

    python benchmarks/startup.py [--model resnet50] [--repeat 3]

Each row is a fresh ``python -c`` whose only shared state is the cache folders in one temporary directory
(``CLDNN_PY_CACHE_DIR``, ``POCL_CACHE_DIR``, OpenVINO's cache). Columns (ms): ``import`` (``import cldnn_py`` /
``onnxruntime`` / ``openvino``), ``engine`` (``Engine()`` / ``ov.Core()``), ``ready`` (from the model path to a
Network, session or compiled model ready to run: the figure the issue's targets are about), ``first run`` (the
first inference; PoCL finishes work-group functions there on a cold start), and ``total`` (process start to the
first result, as a user waits). The machine must be quiet: nothing else running (2 cores).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fresh_process import run_child, zoo_model  # noqa: E402

PREAMBLE = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
"""

CLDNN = PREAMBLE + r"""
import cldnn_py as cl
t1 = time.perf_counter()
eng = cl.Engine()
t2 = time.perf_counter()
mode = sys.argv[2]
if mode == "load":
    net = cl.Network(cl.Program.load(eng, sys.argv[3]))
else:
    net = cl.compile_model(sys.argv[1], eng, warm_start=(mode == "warm-start"))
t3 = time.perf_counter()
name = net.input_ids[0]
x = np.random.default_rng(0).standard_normal(net.get_output_layout(name).shape).astype(np.float32)
net.run({name: x})
t4 = time.perf_counter()
if mode == "save":
    net.program.save(sys.argv[3])
print(json.dumps({"import": t1 - t0, "engine": t2 - t1, "ready": t3 - t2, "first_run": t4 - t3, "total": t4 - t0,
                  "from": net.program.source}))
"""

ORT = PREAMBLE + r"""
import onnxruntime as ort
t1 = time.perf_counter()
so = ort.SessionOptions(); so.intra_op_num_threads = 2
t2 = time.perf_counter()
s = ort.InferenceSession(sys.argv[1], so, providers=["CPUExecutionProvider"])
t3 = time.perf_counter()
i = s.get_inputs()[0]
s.run(None, {i.name: np.random.default_rng(0).standard_normal(i.shape).astype(np.float32)})
t4 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "engine": t2 - t1, "ready": t3 - t2, "first_run": t4 - t3, "total": t4 - t0}))
"""

OV = PREAMBLE + r"""
import openvino as ov
t1 = time.perf_counter()
core = ov.Core()
if sys.argv[2] != "-":
    core.set_property({"CACHE_DIR": sys.argv[2]})
t2 = time.perf_counter()
c = core.compile_model(sys.argv[1], "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
t3 = time.perf_counter()
r = c.create_infer_request()
shape = tuple(c.inputs[0].shape)
r.infer({0: np.random.default_rng(0).standard_normal(shape).astype(np.float32)})
t4 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "engine": t2 - t1, "ready": t3 - t2, "first_run": t4 - t3, "total": t4 - t0}))
"""


def child(code: str, model: pathlib.Path, folder: str, *extra: str) -> dict[str, float]:
    """One fresh interpreter with every cache under ``folder``."""
    env = {"CLDNN_PY_CACHE_DIR": os.path.join(folder, "kernels"), "POCL_CACHE_DIR": os.path.join(folder, "pocl"),
           "CLDNN_PY_WARM_START": "1"}
    return run_child(code, model, env, drop=("CLDNN_PY_NO_CACHE",), args=extra)


def row(name: str, r: dict[str, float]) -> None:
    print(f"{name:<34} {1e3 * r['import']:7.0f} {1e3 * r['engine']:7.0f} {1e3 * r['ready']:8.0f} "
          f"{1e3 * r['first_run']:10.0f} {1e3 * r['total']:8.0f}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="resnet50")
    ap.add_argument("--repeat", type=int, default=3, help="warm measurements of each kind")
    args = ap.parse_args(argv)
    path = zoo_model(args.model)
    print(f"{args.model}: fresh processes, times in ms")
    print(f"{'start':<34} {'import':>7} {'engine':>7} {'ready':>8} {'first run':>10} {'total':>8}")
    with tempfile.TemporaryDirectory(prefix="startup_") as folder:
        saved = os.path.join(folder, "model.cldnn")
        row("cldnn_py cold (empty caches)", child(CLDNN, path, folder, "cold"))
        row("cldnn_py caches warm, no warm start", child(CLDNN, path, folder, "save", saved))
        for _ in range(args.repeat):
            row("cldnn_py caches warm, no warm start", child(CLDNN, path, folder, "cold"))
        row("cldnn_py warm start (first: stores)", child(CLDNN, path, folder, "warm-start"))
        for _ in range(args.repeat):
            row("cldnn_py warm start", child(CLDNN, path, folder, "warm-start"))
        for _ in range(args.repeat):
            row("cldnn_py Program.load(file)", child(CLDNN, path, folder, "load", saved))
        for _ in range(args.repeat):
            row("onnxruntime InferenceSession", child(ORT, path, folder))
        try:
            import openvino  # noqa: F401
        except ImportError:
            print("openvino: not installed (pip install openvino); skipped")
            return 0
        ov_cache = os.path.join(folder, "ov")
        for _ in range(args.repeat):
            row("OpenVINO compile_model", child(OV, path, folder, "-"))
        row("OpenVINO compile_model, CACHE_DIR (1st)", child(OV, path, folder, ov_cache))
        for _ in range(args.repeat):
            row("OpenVINO compile_model, CACHE_DIR", child(OV, path, folder, ov_cache))
    return 0


if __name__ == "__main__":
    sys.exit(main())
