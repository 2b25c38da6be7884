"""``make bench``: the zoo's real networks on cldnn_py (every OpenCL device and the CPU engine) against onnxruntime,
batch 1 and 8.

    python benchmarks/bench.py [--models resnet50 alexnet googlenet squeezenet | mobilenet_v3 ... | all]
                               [--batches 1 8] [--runs N] [--devices cl:0:0 cpu ...] [--json .cache/bench.json]

``--models`` takes the zoo's models (``cldnn_py.tools.zoo``) and the real-shapes models (``cldnn_py.tools.
real_shapes``: mobilenet_v3, yolo_neck, dbnet_head, crnn, vit_tiny, at their default input sizes 224 / 320 / 320 /
32x320 / 224); ``all`` is
every one of both. For each model and batch the seeded model (weights seed 0, written once to
``.cache/models/<name>_b<batch>_s0.onnx`` and reused) is built on every OpenCL device of ``list_devices()`` and on the
CPU (numba) engine ``"cpu"`` with the default ``BuildOptions`` (program build time and kernel count recorded) and
loaded in onnxruntime (CPU execution provider, 2 intra-op threads, sequential execution). Every engine runs once on
the same N(0, 1) input and its outputs are compared with onnxruntime's (max |ours - ort| / max |ort| per output, the
largest over the outputs), then one more warm-up run each, then ``--runs`` timed rounds in which the engines run one
after the other (interleaved, the order rotating every round) so that drift of the shared machine hits all of them
alike, each timed run right after an untimed run of the same engine (steady state: warm caches and threads, whatever
ran before), with an untimed pause of ``--gap-ms`` after every run. onnxruntime's thread spinning is turned off
(``--ort-spin`` keeps its default): its spinning threads hold both cores for tens of ms after a run and slowed the
engine that ran next (measured: SqueezeNet on PoCL 5.8 ms back to back, 12.4 ms right after an onnxruntime run).

Printed per engine: latency median [min-max] in ms (wall time of ``Network.run`` / ``InferenceSession.run``,
host copies included), images/s (batch / median), GFLOP/s (counted FLOPs per image x images/s), and for cldnn_py
the ratio to onnxruntime: the latency ratio ours / ort at batch 1, the throughput ratio ours / ort at batch > 1,
with issue 15's targets (zoo networks batch 1 <= 1.0x, the real-shapes models batch 1 <= 1.2x, batch > 1 >= 1.0x)
marked.
FLOPs are counted from the ONNX graph: 2 x multiply-accumulates of its Conv, Gemm and MatMul nodes, with the
shapes from ``onnx.shape_inference`` (other ops are not counted).

The JSON (``--json``, default ``.cache/bench.json``) holds the same rows plus the machine (CPU model, cores, PoCL
version string, onnxruntime version, date, load average). Progress lines go to stderr. Exit status 1 when a
cldnn_py output differs from onnxruntime by more than ``TOLERANCE`` or an engine fails, else 0 (targets not met
do not fail the run).
"""

from __future__ import annotations

import argparse
import datetime
import functools
import gc
import json
import os
import pathlib
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from cldnn_py.tools import real_shapes, zoo  # noqa: E402  (numpy + onnx only; the engine is imported lazily)

DEFAULT_MODELS = ("resnet50", "alexnet", "googlenet", "squeezenet")
ALL_MODELS = zoo.MODELS + real_shapes.MODELS  # ``--models all``
DEFAULT_BATCHES = (1, 8)
DEFAULT_RUNS = {1: 10}  # timed rounds at batch 1; DEFAULT_RUNS_BATCHED at any other batch
DEFAULT_RUNS_BATCHED = 4
WARMUP = 1  # warm-up runs per engine after the checking run
GAP_MS = 20.0  # untimed pause after every timed run (see ``interleaved``)
TOLERANCE = 1e-3  # max relative output error against onnxruntime
ORT_THREADS = 2
CACHE = ROOT / ".cache"
# FLOPs per image the issue quotes (ResNet-50 8.18, AlexNet 1.31, GoogLeNet 2.86, SqueezeNet 0.70 GFLOP), shown
# only for comparison with the counted value.
QUOTED_GFLOP = {"resnet50": 8.18, "alexnet": 1.31, "googlenet": 2.86, "squeezenet": 0.70}


# ----- pure helpers (tests/unit/test_bench_script.py) -------------------------------------------------------------
def count_flops(model: Any) -> dict[str, int]:
    """FLOPs of one inference of ``model`` (an ``onnx.ModelProto``, whole batch) by op type, 2 x MACs convention.

    Conv: 2 x prod(output shape) x prod(weight shape[1:]) (weight (Cout, Cin/group, kH, kW), so groups and
    dilation are accounted for); Gemm: 2 x prod(output) x K, K the contracted dimension of A (after ``transA``);
    MatMul: 2 x prod(output) x A.shape[-1]. Biases, activations, pooling, normalization etc. are not counted.
    Shapes come from ``onnx.shape_inference.infer_shapes`` plus the graph inputs, outputs and initializers.

    Returns {"Conv": n, "Gemm": n, "MatMul": n, "total": n} (op types absent from the graph count 0).
    Raises ValueError when a counted node's shape cannot be inferred (a dynamic dimension or missing shape).
    """
    import onnx

    inferred = onnx.shape_inference.infer_shapes(model)
    g = inferred.graph
    shapes: dict[str, tuple[int, ...]] = {}
    for vi in [*g.input, *g.value_info, *g.output]:
        t = vi.type.tensor_type
        if t.HasField("shape"):
            dims = [d.dim_value if d.HasField("dim_value") else -1 for d in t.shape.dim]
            shapes[vi.name] = tuple(dims)
    for init in g.initializer:
        shapes[init.name] = tuple(int(d) for d in init.dims)

    def shape(name: str, node: Any) -> tuple[int, ...]:
        s = shapes.get(name)
        if s is None or any(d < 0 for d in s):
            raise ValueError(f"{node.op_type} '{node.name or node.output[0]}': shape of {name!r} unknown ({s})")
        return s

    out = {"Conv": 0, "Gemm": 0, "MatMul": 0}
    for node in g.node:
        if node.op_type not in out:
            continue
        y = int(np.prod(shape(node.output[0], node)))
        if node.op_type == "Conv":
            k = int(np.prod(shape(node.input[1], node)[1:]))
        elif node.op_type == "Gemm":
            a = shape(node.input[0], node)
            trans_a = next((onnx.helper.get_attribute_value(at) for at in node.attribute if at.name == "transA"), 0)
            k = a[0] if trans_a else a[1]
        else:
            k = shape(node.input[0], node)[-1]
        out[node.op_type] += 2 * y * k
    out["total"] = sum(out.values())
    return out


def target_for(model: str, batch: int) -> tuple[str, float]:
    """Issue 15's target for cldnn_py against onnxruntime: ("latency", max ratio ours/ort) at batch 1 (1.0 for the
    zoo networks, 1.2 for the real-shapes models), ("throughput", min ratio ours/ort) = 1.0 at batch > 1."""
    if batch == 1:
        return "latency", 1.2 if model in real_shapes.MODELS else 1.0
    return "throughput", 1.0


def summarize(times_ms: Sequence[float], batch: int, gflop_per_image: float) -> dict[str, Any]:
    """Latency statistics of one engine: {"runs", "median_ms", "min_ms", "max_ms", "times_ms", "images_per_s",
    "gflop_per_s"}; images/s = batch x 1000 / median, GFLOP/s = GFLOP per image x images/s."""
    t = np.asarray(times_ms, dtype=np.float64)
    med = float(np.median(t))
    ips = batch * 1e3 / med
    return {"runs": len(t), "median_ms": med, "min_ms": float(t.min()), "max_ms": float(t.max()),
            "times_ms": [round(float(v), 3) for v in t], "images_per_s": ips, "gflop_per_s": gflop_per_image * ips}


def compare(row: dict[str, Any], ort: dict[str, Any]) -> None:
    """Add to the cldnn_py ``row`` its ratio to the onnxruntime row ``ort`` and the target verdict: "ratio_kind",
    "ratio" (latency ours/ort at batch 1, throughput ours/ort at batch > 1), "target" (the bound) and
    "target_met"."""
    kind, bound = target_for(row["model"], row["batch"])
    if kind == "latency":
        ratio = row["median_ms"] / ort["median_ms"]
        met = ratio <= bound
    else:
        ratio = row["images_per_s"] / ort["images_per_s"]
        met = ratio >= bound
    row.update(ratio_kind=kind, ratio=ratio, target=bound, target_met=met)


def max_rel_error(ours: dict[str, np.ndarray], ref: dict[str, np.ndarray]) -> float:
    """max over the outputs of ``ref`` of max|ours - ref| / max|ref| (float64); inf when an output is missing or
    has another shape."""
    worst = 0.0
    for name, r in ref.items():
        o = ours.get(name)
        if o is None or np.shape(o) != np.shape(r):
            return float("inf")
        r64 = np.asarray(r, dtype=np.float64)
        err = float(np.abs(np.asarray(o, dtype=np.float64) - r64).max() / max(float(np.abs(r64).max()), 1e-30))
        worst = max(worst, err)
    return worst


def _fmt_target(row: dict[str, Any]) -> str:
    if "ratio" not in row:
        return ""
    sign = "<=" if row["ratio_kind"] == "latency" else ">="
    verdict = "met" if row["target_met"] else "NOT MET"
    return f"{row['ratio_kind'][:3]} {row['ratio']:.2f}x ({sign}{row['target']:.1f}x {verdict})"


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    """The printed table, one line per (model, batch, engine). Rows are those of ``run_benchmark``'s "results":
    model, batch, engine, device, gflop_per_image, median/min/max_ms, images_per_s, gflop_per_s, and for
    cldnn_py rows build_ms, kernels, max_rel_error, ratio fields (``compare``) or "error"."""
    head = (f"{'model':<13}{'batch':>5}  {'engine':<24}{'GFLOP/img':>9}  {'latency ms median [min-max]':<30}"
            f"{'img/s':>8}{'GFLOP/s':>9}  {'vs onnxruntime (target)':<31}{'build ms':>9}{'kernels':>8}"
            f"{'rel err':>9}")
    lines = [head, "-" * len(head)]
    for r in rows:
        engine = r["engine"] if r["engine"] == "onnxruntime" else f"cldnn_py {r['device']}"
        lead = f"{r['model']:<13}{r['batch']:>5}  {engine[:23]:<24}{r['gflop_per_image']:>9.2f}  "
        if "error" in r:
            lines.append(lead + f"FAILED: {r['error']}")
            continue
        lat = f"{r['median_ms']:.1f} [{r['min_ms']:.1f}-{r['max_ms']:.1f}]"
        build = f"{r['build_ms']:9.0f}{r['kernels']:8d}" if "build_ms" in r else f"{'':9}{'':8}"
        err = f"{r['max_rel_error']:9.1e}" if "max_rel_error" in r else ""
        lines.append(lead + f"{lat:<30}{r['images_per_s']:8.1f}{r['gflop_per_s']:9.1f}  {_fmt_target(r):<31}"
                     + build + err)
    return "\n".join(lines)


def format_json(report: dict[str, Any]) -> str:
    """``report`` ({"machine", "settings", "results"}) as indented JSON; non-finite floats become null."""

    def clean(v: Any) -> Any:
        if isinstance(v, float) and not np.isfinite(v):
            return None
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [clean(x) for x in v]
        if isinstance(v, np.generic):
            return clean(v.item())
        return v

    return json.dumps(clean(report), indent=2)


def runs_for(batch: int, runs: int | None) -> int:
    """Timed rounds at ``batch``: ``runs`` when given, else 10 at batch 1 and 4 at larger batches."""
    return runs if runs is not None else DEFAULT_RUNS.get(batch, DEFAULT_RUNS_BATCHED)


def interleaved(runners: Sequence[Callable[[], Any]], rounds: int, gap_s: float = 0.0,
                warm_each: bool = False) -> list[list[float]]:
    """Wall times in ms of ``rounds`` rounds in which every runner is called once; the order rotates each round
    (round i starts with runner i mod n), with a pause of ``gap_s`` seconds (untimed) after every call. With
    ``warm_each`` each timed call follows an untimed call of the same runner, so every engine is timed in its
    steady state (caches and threads warm) whatever ran before it. Returns one list of times per runner."""
    times: list[list[float]] = [[] for _ in runners]
    n = len(runners)
    for i in range(rounds):
        for j in range(n):
            k = (i + j) % n
            if warm_each:
                runners[k]()
            t0 = time.perf_counter()
            runners[k]()
            times[k].append((time.perf_counter() - t0) * 1e3)
            if gap_s > 0:
                time.sleep(gap_s)
    return times


# ----- machine ------------------------------------------------------------------------------------------------------
def machine_info(devices: Sequence[Any]) -> dict[str, Any]:
    """CPU model, cores, OpenCL devices (spec, name, platform version: the PoCL version string), library
    versions, git commit, date and load average."""
    import onnxruntime as ort
    import pyopencl

    import cldnn_py

    cpu = platform.processor() or "unknown"
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True,
                                text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return {
        "cpu": cpu, "cores": os.cpu_count(), "load_average": list(os.getloadavg()),
        "opencl_devices": [{"spec": d.spec, "name": d.name, "platform": d.platform,
                            "platform_version": d.platform_version, "driver_version": d.driver_version,
                            "compute_units": d.compute_units} for d in devices],
        "onnxruntime": ort.__version__, "cldnn_py": getattr(cldnn_py, "__version__", "?"),
        "pyopencl": pyopencl.VERSION_TEXT, "numpy": np.__version__, "python": platform.python_version(),
        "git": commit, "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
    }


# ----- the measurement ----------------------------------------------------------------------------------------------
def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def source_of(name: str) -> Any:
    """The module that makes model ``name``: ``zoo`` or ``real_shapes``. Raises ValueError for an unknown name."""
    if name in zoo.MODELS:
        return zoo
    if name in real_shapes.MODELS:
        return real_shapes
    raise ValueError(f"unknown model {name!r}; known: {', '.join(ALL_MODELS)}")


def model_path(name: str, batch: int, out_dir: pathlib.Path) -> pathlib.Path:
    """``out_dir/<name>_b<batch>_s0.onnx``, written by ``zoo.save`` or ``real_shapes.save`` (default input size)
    when absent (both are deterministic)."""
    path = out_dir / f"{name}_b{batch}_s0.onnx"
    if not path.exists():
        source_of(name).save(name, out_dir, seed=0, batch=batch)
    return path


def parse_models(names: Sequence[str]) -> list[str]:
    """``--models``: the names in order without repeats, ``all`` standing for every model of ``ALL_MODELS``."""
    out: list[str] = []
    for n in names:
        for m in ALL_MODELS if n == "all" else (n,):
            if m not in out:
                out.append(m)
    return out


def bench_one(name: str, batch: int, engines: Sequence[Any], rounds: int, tag: str, gap_ms: float = GAP_MS,
              ort_spin: bool = False, precisions: Sequence[str] = ("f32",), tuning: str = "cache"
              ) -> list[dict[str, Any]]:
    """All rows of one (model, batch): onnxruntime first, then one per engine (see the module docstring).
    ``ort_spin`` False sets onnxruntime's ``session.intra_op.allow_spinning`` to 0 (its default is 1)."""
    import onnx
    import onnxruntime as ort

    import cldnn_py as cl

    path = model_path(name, batch, CACHE / "models")
    model = onnx.load(str(path))
    flops = count_flops(model)
    gflop = flops["total"] / batch / 1e9
    base = {"model": name, "batch": batch, "gflop_per_image": gflop, "gflop_quoted": QUOTED_GFLOP.get(name),
            "flops_by_op": {k: v // batch for k, v in flops.items()}}
    src = source_of(name)
    x = np.random.default_rng(0).standard_normal(src.input_shape(name, batch)).astype(np.float32)
    feeds = {src.input_name(name): x}

    so = ort.SessionOptions()
    so.intra_op_num_threads = ORT_THREADS
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    if not ort_spin:
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    out_names = [o.name for o in sess.get_outputs()]
    ref = dict(zip(out_names, sess.run(None, feeds), strict=True))
    rows: list[dict[str, Any]] = [{**base, "engine": "onnxruntime", "device": "CPUExecutionProvider",
                                   "threads": ORT_THREADS}]
    runners: list[Callable[[], Any]] = [lambda: sess.run(None, feeds)]
    nets = []
    for engine, prec in [(e, p) for e in engines for p in precisions if p == "f32" or e.kind == "ocl"]:
        row: dict[str, Any] = {**base, "engine": "cldnn_py", "precision": prec,
                               "device": engine.info.spec + ("" if prec == "f32" else f" {prec}"),
                               "device_name": engine.info.name}
        rows.append(row)
        try:
            _log(f"{tag} {name} batch {batch}: building on {engine.info.spec} ...")
            t0 = time.perf_counter()
            topo = cl.load_onnx(model)
            row["import_ms"] = (time.perf_counter() - t0) * 1e3
            program = cl.Program(engine, topo, cl.BuildOptions(inference_precision=prec, tuning=tuning))
            row["build_ms"] = program.build_time_ms
            row["kernels"] = program.kernels_built
            net = cl.Network(program)
            row["max_rel_error"] = max_rel_error(net.run(feeds), ref)
            _log(f"{tag} {name} batch {batch}: {engine.info.spec} built in {program.build_time_ms:.0f} ms "
                 f"({program.kernels_built} kernels), max rel. error vs onnxruntime {row['max_rel_error']:.1e}")
        except Exception as e:  # one engine failing must not lose the others' figures
            row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200]
            _log(f"{tag} {name} batch {batch}: {engine.info.spec} FAILED: {row['error']}")
            continue
        nets.append((row, net))
        runners.append(functools.partial(net.run, feeds))
    live = [rows[0]] + [r for r, _ in nets]
    _log(f"{tag} {name} batch {batch}: warm-up, then {rounds} interleaved rounds of {len(runners)} engines ...")
    interleaved(runners, WARMUP, gap_ms / 1e3)
    times = interleaved(runners, rounds, gap_ms / 1e3, warm_each=True)
    for row, t in zip(live, times, strict=True):
        row.update(summarize(t, batch, gflop))
    for row, _ in nets:
        compare(row, rows[0])
    return rows


def run_benchmark(models: Sequence[str], batches: Sequence[int], runs: int | None,
                  device_specs: Sequence[str] | None, gap_ms: float = GAP_MS, ort_spin: bool = False,
                  precisions: Sequence[str] = ("f32",), tuning: str = "cache") -> dict[str, Any]:
    """Every (model, batch) on onnxruntime and every OpenCL device; returns {"machine", "settings", "results",
    "wall_s"}. ``tuning``: BuildOptions.tuning ("cache": the shipped tuning cache and the user's, where their
    device key matches; "off": the priority rules alone)."""
    import cldnn_py as cl
    from cldnn_py.device import build_problem

    specs = []
    for d in cl.list_devices():  # every OpenCL device that builds a kernel (no simulator unless named), then "cpu"
        p, i = (int(x) for x in d.spec.split(":")[1:])
        why = build_problem(p, i)
        if why is None and "oclgrind" in d.platform.lower() and d.spec not in (device_specs or ()):
            why = "a simulator; name it in --devices to time it"
        if why is None:
            specs.append(d.spec)
        else:
            _log(f"skipping {d.spec} {d.name} [{d.platform_version}]: {why}")
    specs.append("cpu")
    engines = [cl.Engine(s) for s in specs if not device_specs or s in device_specs]
    if not engines:
        raise SystemExit(f"no device{' matching ' + ' '.join(device_specs) if device_specs else ''}")
    devices = [e.info for e in engines]
    machine = machine_info(devices)
    _log(f"machine: {machine['cpu']}, {machine['cores']} cores, load {machine['load_average'][0]:.2f}; "
         f"onnxruntime {machine['onnxruntime']}; devices: "
         + "; ".join(f"{d.spec} {d.name} [{d.platform_version}]" for d in devices))
    t0 = time.perf_counter()
    results: list[dict[str, Any]] = []
    jobs = [(m, b) for b in batches for m in models]
    for i, (name, batch) in enumerate(jobs):
        results.extend(bench_one(name, batch, engines, runs_for(batch, runs), f"[{i + 1}/{len(jobs)}]",
                                 gap_ms, ort_spin, precisions, tuning))
        gc.collect()  # the networks of the last model hold device memory
    settings = {"models": list(models), "batches": list(batches),
                "runs": {str(b): runs_for(b, runs) for b in batches}, "warmup": WARMUP, "gap_ms": gap_ms,
                "onnxruntime": {"provider": "CPUExecutionProvider", "intra_op_threads": ORT_THREADS,
                                "execution_mode": "sequential",
                                "spinning": "on (its default)" if ort_spin else "off"},
                "timed_runs": "each right after an untimed warm run of the same engine",
                "build_options": f"BuildOptions(tuning={tuning!r})", "weights_seed": 0, "input": "N(0,1), seed 0",
                "tolerance": TOLERANCE}
    return {"machine": machine, "settings": settings, "results": results, "wall_s": time.perf_counter() - t0}


def tolerance(row: dict[str, Any]) -> float:
    """The largest relative error accepted for a row: TOLERANCE, or 1e-2 for an f16 build (half storage)."""
    return 1e-2 if row.get("precision") == "f16" else TOLERANCE


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``main``."""
    ap = argparse.ArgumentParser(prog="python benchmarks/bench.py",
                                 description="Zoo networks on cldnn_py (every OpenCL device) vs onnxruntime.")
    ap.add_argument("--models", nargs="+", default=list(DEFAULT_MODELS), choices=(*ALL_MODELS, "all"),
                    metavar="NAME",
                    help=f"zoo models and real-shapes models, or 'all' (default: {' '.join(DEFAULT_MODELS)}; "
                         f"known: {', '.join(ALL_MODELS)})")
    ap.add_argument("--batches", nargs="+", type=int, default=list(DEFAULT_BATCHES), metavar="N",
                    help="batch sizes (default: 1 8)")
    ap.add_argument("--runs", type=int, default=None, metavar="N",
                    help=f"timed rounds per (model, batch) (default: {DEFAULT_RUNS[1]} at batch 1, "
                         f"{DEFAULT_RUNS_BATCHED} at larger batches)")
    ap.add_argument("--devices", nargs="+", metavar="SPEC",
                    help="only these devices (cl:P:D or cpu; default: every OpenCL device and cpu)")
    ap.add_argument("--gap-ms", type=float, default=GAP_MS, metavar="MS",
                    help=f"untimed pause after every run, so no engine's spinning threads slow the next "
                         f"(default {GAP_MS:g})")
    ap.add_argument("--ort-spin", action="store_true",
                    help="keep onnxruntime's thread spinning on (its default); off by default here because its "
                         "spinning threads hold the cores for tens of ms after a run and slow the next engine")
    ap.add_argument("--precision", nargs="+", default=["f32"], choices=["f32", "f16"],
                    help="inference precisions of the OpenCL builds: f16 adds a column per OpenCL device "
                         "(BuildOptions(inference_precision='f16'); the CPU engine is f32 only)")
    ap.add_argument("--tuning", default="cache", choices=["cache", "off"],
                    help="cache (default): the tuning caches apply where their device key matches (the shipped "
                         "one was measured on the pip PoCL, 2-core Zen 4); off: the kernels' priority rules alone")
    ap.add_argument("--json", default=str(CACHE / "bench.json"), metavar="PATH",
                    help="write the report here (default: .cache/bench.json)")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments, run, print the table, write the JSON; exit status 1 on a wrong output or a failure."""
    ap = build_parser()
    args = ap.parse_args(argv)
    if any(b < 1 for b in args.batches) or (args.runs is not None and args.runs < 1):
        ap.error("--batches and --runs must be >= 1")
    report = run_benchmark(parse_models(args.models), args.batches, args.runs, args.devices, args.gap_ms, args.ort_spin,
                           args.precision, args.tuning)
    m = report["machine"]
    print(f"{m['cpu']}, {m['cores']} cores, load average {m['load_average'][0]:.2f} at start; onnxruntime "
          f"{m['onnxruntime']} ({ORT_THREADS} threads, spinning {report['settings']['onnxruntime']['spinning']}); "
          + "; ".join(f"{d['spec']} {d['name']} [{d['platform_version']}]" for d in m["opencl_devices"]))
    print(format_table(report["results"]))
    print(f"total {report['wall_s']:.0f} s; latency = wall time of one run (host copies included); "
          f"ratio: latency ours/ort at batch 1, throughput ours/ort at batch > 1")
    out = pathlib.Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(format_json(report))
    print(f"wrote {out}")
    bad = [r for r in report["results"] if "error" in r or r.get("max_rel_error", 0.0) > tolerance(r)]
    for r in bad:
        why = r.get("error") or f"max rel. error {r['max_rel_error']:.1e} > {tolerance(r):.0e}"
        print(f"FAILED: {r['model']} batch {r['batch']} on {r['device']}: {why}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
