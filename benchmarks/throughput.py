"""Serving throughput (issue 19): images/s with one and with N inferences in flight, against onnxruntime's best with
2 threads, same model, same process.

    python benchmarks/throughput.py [--model resnet50] [--requests 2] [--seconds 8] [--rounds 2] [--device cl]
                                    [--cpu] [--streams-ab] [--json out.json]

The model is a zoo network (``cldnn_py.tools.zoo``) or a real-shapes model (``cldnn_py.tools.real_shapes``:
mobilenet_v3, yolo_neck, dbnet_head) at batch 1 (``.cache/models/<name>_b1_s0.onnx``, seeded weights; written when
missing), fed N(0, 1) data.
Rows, each timed for ``--seconds`` after its own warm-up, in ``--rounds`` rounds (the order of the blocks alternates
between rounds; each row's best round is reported, so drift of the shared machine does not decide the ratios):

- cldnn_py ``run()`` loop: one Network, ``Network.run`` back to back (what ``cldnn-py benchmark`` measures);
- cldnn_py 1 request / N requests: ``cldnn_py.infer_queue.measure_throughput`` (an AsyncInferQueue of that many
  requests over one Program, kept full; ``cldnn-py benchmark --mode throughput --requests N``);
- onnxruntime (CPU execution provider, default thread spinning), three ways to use 2 threads: one session with 2
  intra-op threads run back to back; two sessions with 1 intra-op thread each, run from 2 Python threads at once;
  one session with the parallel executor (``ORT_PARALLEL``, 2 inter-op threads, 1 intra-op thread) run from 2
  Python threads at once. Their best is the reference.

Printed: images/s per row, the per-request latency median, and the ratios N requests / one request (both the
``run()`` loop and the 1-request queue) and N requests / onnxruntime's best. ``--cpu`` adds the CPU (numba) engine's
``run()`` loop and N requests. Issue 19's targets: N = 2 on PoCL at least 1.1x the one-request figure and at least
onnxruntime's best. Progress lines go to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.fresh_process import zoo_model  # noqa: E402
from cldnn_py.tools import real_shapes  # noqa: E402

WARMUP_S = 1.0


def model_path(name: str) -> pathlib.Path:
    """The batch-1 model file of a zoo or real-shapes model, written once."""
    if name not in real_shapes.MODELS:
        return zoo_model(name)
    path = ROOT / ".cache" / "models" / f"{name}_b1_s0.onnx"
    return path if path.exists() else real_shapes.save(name, path.parent)


def _loop(fn: Callable[[], Any], seconds: float) -> dict[str, Any]:
    """``fn()`` back to back for ``seconds`` after ``WARMUP_S`` of warm-up; images/s and the latency median."""
    t_end = time.perf_counter() + WARMUP_S
    while time.perf_counter() < t_end:
        fn()
    times = []
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    elapsed = time.perf_counter() - t0
    return {"images_per_s": len(times) / elapsed, "latency_ms": float(np.median(times) * 1e3), "completed": len(times)}


def _threads(fns: list[Callable[[], Any]], seconds: float) -> dict[str, Any]:
    """Each ``fn`` back to back in its own thread for ``seconds`` (after a warm-up); total images/s."""
    stop = threading.Event()
    counts = [0] * len(fns)
    times: list[float] = []
    timing = threading.Event()

    def work(k: int) -> None:
        while not stop.is_set():
            t = time.perf_counter()
            fns[k]()
            if timing.is_set():
                counts[k] += 1
                times.append(time.perf_counter() - t)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(fns))]
    for t in threads:
        t.start()
    time.sleep(WARMUP_S)
    timing.set()
    t0 = time.perf_counter()
    time.sleep(seconds)
    done = sum(counts)
    elapsed = time.perf_counter() - t0
    stop.set()
    for t in threads:
        t.join()
    return {"images_per_s": done / elapsed, "latency_ms": float(np.median(times) * 1e3), "completed": done}


def ort_rows(model: pathlib.Path, x: np.ndarray, seconds: float) -> dict[str, Callable[[], dict[str, Any]]]:
    """The three onnxruntime configurations with 2 threads, each a callable that times it."""
    import onnxruntime as ort

    def session(intra: int, parallel: bool = False) -> Any:
        so = ort.SessionOptions()
        so.intra_op_num_threads = intra
        if parallel:
            so.execution_mode = ort.ExecutionMode.ORT_PARALLEL
            so.inter_op_num_threads = 2
        return ort.InferenceSession(str(model), so, providers=["CPUExecutionProvider"])

    name = session(1).get_inputs()[0].name

    def one_session() -> dict[str, Any]:
        s = session(2)
        return _loop(lambda: s.run(None, {name: x}), seconds)

    def two_sessions() -> dict[str, Any]:
        ss = [session(1), session(1)]
        return _threads([lambda s=s: s.run(None, {name: x}) for s in ss], seconds)

    def parallel_executor() -> dict[str, Any]:
        s = session(1, parallel=True)
        return _threads([lambda: s.run(None, {name: x})] * 2, seconds)

    return {"onnxruntime 1 session, 2 intra-op threads": one_session,
            "onnxruntime 2 sessions x 1 thread, 2 Python threads": two_sessions,
            "onnxruntime parallel executor (2 inter-op), 2 Python threads": parallel_executor}


def cldnn_rows(model: pathlib.Path, x: np.ndarray, device: str, requests: int, seconds: float,
               label: str, streams_ab: bool = False) -> dict[str, Callable[[], dict[str, Any]]]:
    """The cldnn_py rows on one engine: the run() loop, 1 request, ``requests`` requests (and with ``streams_ab``
    the same with the other choice of command queues per request than the default)."""
    import cldnn_py as cl
    from cldnn_py.infer_queue import measure_throughput, streams_by_default

    program = cl.Program(cl.Engine(device), cl.load_onnx(str(model)))
    net = cl.Network(program)
    feeds = {net.input_ids[0]: x}

    def queue(n: int, streams: bool | None = None) -> dict[str, Any]:
        r = measure_throughput(program, feeds, requests=n, niter=1, streams=streams)  # warm-up (its own networks)
        r = measure_throughput(program, feeds, requests=n, seconds=seconds, streams=streams)
        return {"images_per_s": r["images_per_s"], "latency_ms": r["latency_ms"]["median"],
                "completed": r["completed"]}

    rows = {f"{label} run() loop": lambda: _loop(lambda: net.run(feeds), seconds),
            f"{label} 1 request": lambda: queue(1),
            f"{label} {requests} requests": lambda: queue(requests)}
    if streams_ab:
        other = not streams_by_default(program)
        rows[f"{label} {requests} requests, {'a queue each' if other else 'one queue'}"] = \
            lambda: queue(requests, other)
    return rows


def main(argv: list[str] | None = None) -> int:
    """Time every row ``--rounds`` times, print the table and the ratios; exit 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="resnet50", help="a zoo or real-shapes model name (default resnet50)")
    ap.add_argument("--requests", type=int, default=2, help="inferences in flight (default 2)")
    ap.add_argument("--seconds", type=float, default=8.0, help="timed seconds per row and round")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--device", default="cl", help="the OpenCL device of the cldnn_py rows (default: cl, the first)")
    ap.add_argument("--cpu", action="store_true", help="also the CPU (numba) engine")
    ap.add_argument("--streams-ab", action="store_true",
                    help="add the N-request row with the other command-queue choice (a queue per request on GPUs "
                         "by default, one shared queue on CPU devices)")
    ap.add_argument("--json", help="write the rows as JSON")
    args = ap.parse_args(argv)

    import onnxruntime as ort

    import cldnn_py as cl

    model = model_path(args.model)
    shape = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).get_inputs()[0].shape
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    spec = cl.Engine(args.device).info
    print(f"{args.model} batch 1; cldnn_py on {spec.spec} {spec.name} ({spec.platform_version}); {os.cpu_count()} "
          f"cores; load average {os.getloadavg()[0]:.2f}", file=sys.stderr)
    ours = cldnn_rows(model, x, args.device, args.requests, args.seconds, "cldnn_py", args.streams_ab)
    theirs = ort_rows(model, x, args.seconds)
    blocks = [ours, theirs]
    if args.cpu:
        cpu = cldnn_rows(model, x, "cpu", args.requests, args.seconds, "CPU engine")
        del cpu["CPU engine 1 request"]
        blocks.append(cpu)
    best: dict[str, dict[str, Any]] = {}
    for r in range(args.rounds):
        for block in (blocks if r % 2 == 0 else blocks[::-1]):
            for label, fn in block.items():
                row = fn()
                print(f"round {r + 1}: {label}: {row['images_per_s']:.2f} images/s", file=sys.stderr)
                if label not in best or row["images_per_s"] > best[label]["images_per_s"]:
                    best[label] = row
    print(f"\n{'configuration':<64} {'images/s':>9} {'latency ms':>11}")
    for label, row in best.items():
        print(f"{label:<64} {row['images_per_s']:9.2f} {row['latency_ms']:11.1f}")
    n = best[f"cldnn_py {args.requests} requests"]["images_per_s"]
    ort_best = max(v["images_per_s"] for k, v in best.items() if k.startswith("onnxruntime"))
    ratios = {"requests / run() loop": n / best["cldnn_py run() loop"]["images_per_s"],
              "requests / 1 request": n / best["cldnn_py 1 request"]["images_per_s"],
              "requests / onnxruntime best": n / ort_best}
    print(f"\n{args.requests} requests in flight: {ratios['requests / run() loop']:.2f}x the run() loop, "
          f"{ratios['requests / 1 request']:.2f}x one request, {ratios['requests / onnxruntime best']:.2f}x "
          f"onnxruntime's best ({ort_best:.2f} images/s); targets >= 1.1x and >= 1.0x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"model": args.model, "device": spec.spec, "requests": args.requests, "rows": best,
                       "ratios": ratios}, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
