"""The zoo networks on a GPU through OpenCL, next to PyTorch (cuDNN, fp32, TF32 off) on the same GPU and onnxruntime
on the CPU, with each network's share of the GPU's fp32 peak. For a session lent a GPU machine (the ``device`` tool).

    python benchmarks/gpu_bench.py [--models resnet50 ...] [--batches 1 8] [--runs 20] [--peak-tflops X]
                                   [--tier auto|gpu|cpu] [--precision f32|f16] [--json out.json]

Setup on such a machine: NVIDIA's driver ships its OpenCL ICD (``libnvidia-opencl.so.1``) but containers often lack
the ``.icd`` file; when ``OCL_ICD_VENDORS`` is unset and the library is found (``ldconfig -p``), this script writes
``/tmp/ocl/nvidia.icd`` and points ``OCL_ICD_VENDORS`` at that folder before pyopencl loads (a folder keeps the other
platforms visible). Wheels (Python 3.12 there) travel as the device README explains; torch/torchvision are
optional: without them the PyTorch column is empty.

For each model and batch: the seeded zoo model (``cldnn_py.tools.zoo``) is built on ``Engine()`` (a GPU first) with
``BuildOptions(kernel_tier=--tier)``, checked against onnxruntime (max relative error of the outputs), then timed:
``--runs`` runs after two warm-ups, each run ``Network.run`` (host copies included) and the device time from
profiling (sum of primitive times). PyTorch runs torchvision's architecture of the same name with random weights
(ResNet-50 is the same network; AlexNet, GoogLeNet and SqueezeNet are torchvision's variants, so their FLOPs are
close but not equal), ``torch.backends.cudnn.allow_tf32 = False`` and ``torch.backends.cuda.matmul.allow_tf32 =
False``, timed with CUDA events after warm-up. GFLOP/s counts the ONNX graph's Conv/Gemm/MatMul FLOPs
(``bench.count_flops``); the roofline share is GFLOP/s / (``--peak-tflops`` x 1000); the default peak comes from the
device name (H100 SXM 66.9, H100 PCIe 51.2, H200 66.9, A100 19.5 TFLOP/s fp32) or is left out.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time
import traceback
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PEAK_TFLOPS = {"H100 PCIe": 51.2, "H100": 66.9, "H200": 66.9, "A100": 19.5, "L40S": 91.6, "L4": 30.3}
TORCHVISION = {"resnet50": "resnet50", "alexnet": "alexnet", "googlenet": "googlenet",
               "squeezenet": "squeezenet1_0", "vgg19": "vgg19", "densenet121": "densenet121"}


def setup_nvidia_icd() -> str | None:
    """Make NVIDIA's OpenCL visible to pyopencl's loader: the folder put in ``OCL_ICD_VENDORS``, or None when it is
    set already or no ``libnvidia-opencl.so.1`` is installed. Call before pyopencl is imported."""
    if os.environ.get("OCL_ICD_VENDORS"):
        return None
    try:
        libs = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    if "libnvidia-opencl.so.1" not in libs:
        return None
    folder = pathlib.Path("/tmp/ocl")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nvidia.icd").write_text("libnvidia-opencl.so.1\n")
    for icd in pathlib.Path("/etc/OpenCL/vendors").glob("*.icd") if pathlib.Path("/etc/OpenCL/vendors").is_dir() \
            else []:
        if not (folder / icd.name).exists():
            (folder / icd.name).write_text(icd.read_text())
    os.environ["OCL_ICD_VENDORS"] = str(folder)
    return str(folder)


def peak_for(device_name: str) -> float | None:
    """The fp32 peak in TFLOP/s of a known GPU by name (the longest matching key), else None."""
    hits = [k for k in PEAK_TFLOPS if k.lower() in device_name.lower()]
    return PEAK_TFLOPS[max(hits, key=len)] if hits else None


def time_cldnn(net: Any, feeds: dict[str, np.ndarray], runs: int) -> tuple[list[float], float]:
    """(wall ms per run, median device ms from profiling) of ``net.run(feeds)`` after two warm-ups."""
    for _ in range(2):
        net.run(feeds)
    wall, device = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        net.run(feeds)
        wall.append((time.perf_counter() - t0) * 1e3)
        device.append(sum(e.time_us for e in net.get_profiling_info()) / 1e3)
    return wall, float(np.median(device))


def time_torch(name: str, batch: int, shape: tuple[int, ...], runs: int) -> float | None:
    """Median ms of torchvision's ``name`` at ``batch`` on CUDA in fp32 with TF32 off, or None without torch/CUDA
    or when torchvision has no such network (ShuffleNet v1, Inception-v2, ZFNet, the real-shape models)."""
    if name not in TORCHVISION:
        return None
    try:
        import torch
        import torchvision
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    kwargs = {"aux_logits": False, "init_weights": True} if name == "googlenet" else {}
    model = getattr(torchvision.models, TORCHVISION[name])(weights=None, **kwargs).eval().cuda()
    x = torch.randn((batch, *shape[1:]), device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    with torch.no_grad():
        for _ in range(5):
            model(x)
        torch.cuda.synchronize()
        for _ in range(runs):
            start.record()
            model(x)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
    return float(np.median(times))


def bench(models: list[str], batches: list[int], runs: int, tier: str, peak: float | None,
          top: int = 0, precision: str = "f32") -> list[dict[str, Any]]:
    """One row per (model, batch): latency, device time, GFLOP/s, roofline share, PyTorch and onnxruntime."""
    import cldnn_py as cl

    engine = cl.Engine()
    print(f"device: {engine.info.spec} {engine.info.name} [{engine.info.platform_version}] "
          f"type {engine.info.caps.device_type}", file=sys.stderr)
    peak = peak if peak is not None else peak_for(engine.info.name)
    rows = []
    for name in models:
        for batch in batches:
            try:
                rows.append(bench_one(engine, name, batch, runs, tier, peak, top, precision))
            except Exception as exc:  # one failing network must not hide the others' figures
                traceback.print_exc()
                rows.append({"model": name, "batch": batch, "error": f"{type(exc).__name__}: {exc}"})
                print(f"{name:<11}{batch:>3}  FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
    return rows


def bench_one(engine: Any, name: str, batch: int, runs: int, tier: str, peak: float | None,
              top: int, precision: str = "f32") -> dict[str, Any]:
    """One result row of ``name`` at ``batch`` (see :func:`bench`); prints the ``top`` primitives by device time."""
    import onnx
    import onnxruntime as ort

    import cldnn_py as cl
    from benchmarks.bench import count_flops, max_rel_error, model_path

    path = model_path(name, batch, ROOT / ".cache" / "models")
    model = onnx.load(str(path))
    gflop = count_flops(model)["total"] / 1e9 / batch
    inp = model.graph.input[0]
    shape = tuple(d.dim_value for d in inp.type.tensor_type.shape.dim)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, {inp.name: x})))
    t0 = time.perf_counter()
    net = cl.Network(cl.Program(engine, cl.load_onnx(str(path)), cl.BuildOptions(kernel_tier=tier,
                                                                                 inference_precision=precision)))
    build_s = time.perf_counter() - t0
    err = max_rel_error(net.run({inp.name: x}), ref)
    wall, dev_ms = time_cldnn(net, {inp.name: x}, runs)
    if top:
        by_kernel: dict[str, list[float]] = {}
        for e in net.get_profiling_info():
            by_kernel.setdefault(e.kernel, []).append(e.time_us)
        print(f"  {name} b{batch}: build {build_s:.1f} s; device time by kernel (ms, count):", file=sys.stderr)
        for k, ts in sorted(by_kernel.items(), key=lambda kv: -sum(kv[1]))[:top]:
            print(f"    {k:<40} {sum(ts) / 1e3:8.3f} ms  x{len(ts)}", file=sys.stderr)
    t_ort = [0.0] * 3
    for i in range(3):
        t0 = time.perf_counter()
        sess.run(None, {inp.name: x})
        t_ort[i] = (time.perf_counter() - t0) * 1e3
    med = float(np.median(wall))
    torch_ms = time_torch(name, batch, shape, runs)
    row = {"model": name, "batch": batch, "precision": precision, "gflop_per_image": gflop, "latency_ms": med,
           "device_ms": dev_ms, "gflop_per_s": gflop * batch / (med / 1e3), "rel_err": err,
           "torch_ms": torch_ms, "ort_cpu_ms": float(np.median(t_ort)), "build_s": build_s,
           "roofline": (gflop * batch / (dev_ms / 1e3)) / (peak * 1e3) if peak else None}
    print(format_row(row), file=sys.stderr)
    del net
    return row


def format_row(r: dict[str, Any]) -> str:
    """One table line of a result row."""
    torch_ms = r["torch_ms"]
    vs = f"{r['latency_ms'] / torch_ms:6.2f}x" if torch_ms else "    n/a"
    roof = f"{100 * r['roofline']:5.1f}%" if r["roofline"] is not None else "  n/a"
    return (f"{r['model']:<11}{r['batch']:>3}  {r['latency_ms']:9.2f} ms  device {r['device_ms']:9.2f} ms  "
            f"{r['gflop_per_s']:8.1f} GFLOP/s  roofline {roof}  torch "
            f"{(torch_ms or float('nan')):8.2f} ms ({vs})  ort-cpu {r['ort_cpu_ms']:8.1f} ms  err {r['rel_err']:.1e}")


def main(argv: list[str] | None = None) -> int:
    """CLI entry; see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=["resnet50", "alexnet", "googlenet", "squeezenet"],
                    help="zoo or real-shape model names (benchmarks/bench.py), or 'all'")
    ap.add_argument("--batches", nargs="+", type=int, default=[1, 8])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--tier", default="auto", choices=["auto", "cpu", "gpu"])
    ap.add_argument("--precision", default="f32", choices=["f32", "f16"],
                    help="BuildOptions(inference_precision=...): f16 stores activations and weights as half")
    ap.add_argument("--peak-tflops", type=float, default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--top", type=int, default=0, help="print the N kernels with the most device time per row")
    args = ap.parse_args(argv)
    folder = setup_nvidia_icd()
    if folder:
        print(f"OCL_ICD_VENDORS={folder} (NVIDIA's OpenCL ICD)", file=sys.stderr)
    from benchmarks.bench import parse_models

    rows = bench(parse_models(args.models), args.batches, args.runs, args.tier, args.peak_tflops, args.top,
                 args.precision)
    for r in rows:
        print(format_row(r) if "error" not in r else f"{r['model']:<11}{r['batch']:>3}  FAILED: {r['error']}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))
    tol = 1e-3 if args.precision == "f32" else 1e-2  # half storage: about 1e-3 relative per layer
    return 0 if all("error" not in r and r["rel_err"] <= tol for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
