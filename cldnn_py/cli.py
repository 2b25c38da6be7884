"""The ``cldnn-py`` command line (argparse). The library prints nothing; this module does.

    cldnn-py devices                                   OpenCL devices, and which one Engine() picks and why
    cldnn-py run MODEL [--input NAME=FILE.npy ...] [--output OUT.npz] [--device ID] [--shape NAME=DIMS]
    cldnn-py benchmark MODEL [--device ID] [-n ITER | -t SECONDS] [--batch N] [--shape NAME=DIMS] [--pc]
                       [--report FILE.json] [--check] [--mode latency|throughput] [--requests N]
    cldnn-py dump-graph MODEL -o FILE.dot
    cldnn-py zoo --out DIR [--models resnet50 ...] [--batch N] [--seed S]   (the onnx wheel's real graphs)
    cldnn-py version

Modelled on OpenVINO's benchmark_app and onnxruntime_perf_test. Every subcommand is a function taking the parsed
arguments and returning the exit status; ``main(argv)`` is the entry point.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np


def _devices(args: argparse.Namespace) -> int:
    from .cpu_engine import cpu_device_info
    from .device import NO_PLATFORM_HELP, default_choice, list_devices

    devs = list_devices()
    if not devs:
        print(NO_PLATFORM_HELP, file=sys.stderr)
    from .device import build_problem

    for d in devs:
        k = d.caps
        p, i = (int(x) for x in d.spec.split(":")[1:])
        why = build_problem(p, i)
        sub = f"{'intel ' if k.intel_subgroups else ''}{'khr ' if k.subgroups else ''}".strip() or "no"
        print(f"{d.spec}  {d.name}  [{d.platform_version}]  {k.device_type}{' (simulator)' if k.simulator else ''}, "
              f"compute units {d.compute_units}, work-group {k.max_work_group_size}, local memory "
              f"{k.local_mem_bytes // 1024} KiB{'' if k.local_mem_dedicated else ' (emulated)'}, sub-groups {sub}, "
              f"max alloc {d.max_alloc_bytes / 2**20:.0f} MiB, global {d.global_mem_bytes / 2**20:.0f} MiB, "
              f"fp16 {'yes' if d.supports_fp16 else 'no'}, out-of-order queue {'yes' if d.out_of_order else 'no'}"
              + (f"; cannot build: {why}" if why else ""))
    c = cpu_device_info()
    print(f"cpu  {c.name}  [{c.platform_version}]  threads {c.compute_units}, max alloc "
          f"{c.max_alloc_bytes / 2**20:.0f} MiB (the CPU engine: Engine('cpu'), --device cpu)")
    if devs:
        spec, why = default_choice()
        print(f"Engine() picks {spec}: {why}")
    else:
        print("Engine() picks cpu: there is no OpenCL platform")
    if getattr(args, "probe", False) and devs:
        for d in devs:
            if d.caps.simulator:
                print(f"{d.spec}: a simulator, not probed (its timings mean nothing)")
        _probe(args.cache, [d.spec for d in devs if not d.caps.simulator])
    return 0


def _probe(cache_path: str | None, specs: list[str]) -> None:
    """Run the load-form and register probes on every device, print them, store them in the tuning cache."""
    from kernel_selector.tuning_cache import TuningCache

    from .device_probe import _source, binary_calls, probe_load_form
    from .kernel_cache import default_tuning_cache_path
    from .ocl_engine import OclEngine
    from .register_probe import probe_registers, registers_by_rule

    cache = TuningCache(cache_path or default_tuning_cache_path())
    for spec in specs:
        engine = OclEngine(spec)  # the probe is an OpenCL kernel
        r = probe_load_form(engine)
        calls = {f: binary_calls(_source(f)[0]) for f in ("pointer", "vload")}
        rates = ", ".join(f"{f} {g:.0f} GFLOP/s" + (f" ({calls[f]} calls in its binary)" if calls.get(f) is not None
                                                      else "") for f, g in r["gflops"].items())
        print(f"{spec} load-form probe: {rates} -> {r['load_form']}")
        cache.store_device(engine.info, "load_form", r)
        regs = probe_registers(engine)
        blocks = ", ".join(f"P={p} {g:.0f} GFLOP/s" for p, g in regs["gflops"].items()) or "not measured"
        print(f"{spec} register probe (fsv16 convolution): {blocks} -> {regs['registers']} "
              f"(by rule: {registers_by_rule(engine.info)})")
        cache.store_device(engine.info, "registers", regs)
    print(f"stored in {cache.save()}")


def _version(_: argparse.Namespace) -> int:
    import pyopencl

    from . import __version__

    print(f"cldnn_py {__version__}, pyopencl {pyopencl.VERSION_TEXT}, numpy {np.__version__}")
    return 0


# ----- shared helpers ---------------------------------------------------------------------------------------------
def _shapes(items: list[str] | None) -> dict[str, tuple[int, ...]]:
    out = {}
    for item in items or []:
        name, _, dims = item.rpartition("=")
        if not name or not dims:
            raise SystemExit(f"--shape expects NAME=D1,D2,... (or NAME=D1xD2x...), got {item!r}")
        out[name] = tuple(int(d) for d in dims.replace("x", ",").split(",") if d)
    return out


def _build(path: str, device: str | None, shapes: dict[str, tuple[int, ...]], quiet: bool = False,
           tuning: str = "cache", tuning_cache: str | None = None, engine: Any = None,
           warm_start: bool | None = None) -> Any:
    """Engine, None, Program (with a tqdm bar on a terminal): a saved program file (``cldnn-py compile``) is
    loaded; an ONNX model comes from the warm-start cache or is built (and stored there). A model with host stages
    (NonMaxSuppression ...) gives its PartitionedTopology in place of the Program (:func:`_network` makes either a
    Network)."""
    from . import BuildOptions, Engine, Program
    from .warm_start import compiled_program

    engine = engine or Engine(device)
    if is_program_file(path):
        if shapes:
            raise SystemExit(f"{path} is a compiled program: its input shapes are fixed (drop --shape/--batch)")
        return engine, None, Program.load(engine, path)
    bar = None
    if sys.stderr.isatty() and not quiet:
        from tqdm import tqdm

        bar = tqdm(desc="compiling kernels", unit="kernel", file=sys.stderr, leave=False)

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.total = total
            bar.n = done
            bar.refresh()

    try:
        got = compiled_program(path, engine, shapes or None,
                               BuildOptions(progress=progress, tuning=tuning, tuning_cache=tuning_cache),
                               warm_start=warm_start)
    finally:
        if bar is not None:
            bar.close()
    if not isinstance(got, Program) and not got.is_partitioned:
        _require_static(got)
    return engine, None, got


def _network(engine: Any, built: Any) -> Any:
    """The Network of what :func:`_build` returned: a Program, or a PartitionedTopology (host stages)."""
    from . import Network

    return Network(engine, built) if getattr(built, "is_partitioned", False) else Network(built)


def _build_line(built: Any) -> str:
    """"program build: ..." for a Program, or the stages of a partitioned model."""
    if getattr(built, "is_partitioned", False):
        kinds = ", ".join(f"{s.name} [{getattr(s, 'runner', 'engine')}]" for s in built.stages)
        return f"partitioned model: {len(built.stages)} stages ({kinds}); engine stages build on first use"
    return f"program build: {built.build_time_ms:.0f} ms, {built.kernels_built} kernels"


def is_program_file(path: str) -> bool:
    """True for a file ``Program.save`` / ``cldnn-py compile`` wrote (a zip archive holding ``manifest.json``)."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            return "manifest.json" in z.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


def _require_static(topo: Any) -> None:
    """Raise ShapeError naming the first dynamic dimension (give it with --shape) or the value inputs (inputs whose
    values determine shapes: give them with --input, or fix them in the model)."""
    from .errors import ShapeError

    if not topo.is_dynamic:
        return
    for name, sig in topo.input_signature.items():
        for i, d in enumerate(sig.dims):
            if not isinstance(d, int):
                raise ShapeError(f"input '{name}': dimension {i} is dynamic ({d or '?'}); give it with "
                                 f"--shape {name}=...")
    raise ShapeError(f"inputs {topo.value_inputs} determine shapes by their values; give them with --input "
                     f"NAME=FILE.npy (cldnn-py run) or make them initializers of the model")


def _feeds(net: Any, given: dict[str, np.ndarray], seed: int = 0) -> tuple[dict[str, np.ndarray], list[str]]:
    """Given arrays plus seeded random data for the inputs not given; returns (feeds, names filled)."""
    rng = np.random.default_rng(seed)
    feeds, filled = dict(given), []
    for pid in net.input_ids:
        if pid in feeds:
            continue
        sig = getattr(net, "input_signature", {}).get(pid)
        if sig is not None and sig.is_static:  # the declared type (a partitioned network has no layout for all)
            shape, dtype = tuple(sig.dims), np.dtype(sig.dtype)
        else:
            lay = net.get_output_layout(pid)
            shape, dtype = lay.shape, lay.dtype.numpy
        if dtype.kind == "f":
            feeds[pid] = rng.standard_normal(shape).astype(dtype)
        elif dtype.kind == "b":
            feeds[pid] = rng.integers(0, 2, shape).astype(dtype)
        else:
            feeds[pid] = rng.integers(0, 10, shape).astype(dtype)
        filled.append(pid)
    return feeds, filled


# ----- run --------------------------------------------------------------------------------------------------------
def _program_inputs(path: str) -> dict[str, Any]:
    """The input signatures of a saved program file (read and checked, nothing built)."""
    from .program_codec import decode
    from .program_io import read

    manifest, arrays = read(path)
    return dict(decode(manifest["input_signature"], arrays))



def _run(args: argparse.Namespace) -> int:
    from . import Network
    from .errors import ShapeError, TopologyError
    from .frontend.onnx import input_signatures
    from .input_files import check_input_array, load_array

    given = {}
    declared = (input_signatures(args.model) if not is_program_file(args.model) else
                _program_inputs(args.model)) if args.input else {}
    for item in args.input or []:
        name, _, path = item.partition("=")
        if not path:
            raise SystemExit(f"--input expects NAME=FILE.npy, got {item!r}")
        if name not in declared:
            raise TopologyError(f"--input {item}: '{name}' is not an input of the model (inputs: {list(declared)})")
        given[name] = load_array(path)  # never unpickles
        check_input_array(declared[name], given[name], f"'{path}'")
    shapes = _shapes(args.shape)
    for name, arr in given.items():
        if not is_program_file(args.model):  # a compiled program's shapes are fixed: set_input_data checks them
            shapes.setdefault(name, tuple(arr.shape))
    try:
        if args.fallback != "none":  # partitioned when some node runs in onnxruntime
            from . import Engine
            from .frontend import load_onnx

            net = Network(Engine(args.device), load_onnx(args.model, shapes or None, fallback=args.fallback))
        else:
            engine, _, program = _build(args.model, args.device, shapes)
            net = _network(engine, program)
    except ShapeError:
        from . import Engine
        from .dynamic_network import DynamicNetwork, DynamicTopology
        from .frontend import load_onnx

        topo = load_onnx(args.model, shapes or None)
        if not isinstance(topo, DynamicTopology) or not topo.value_inputs or not set(topo.value_inputs) <= set(given):
            raise
        net = DynamicNetwork(Engine(args.device), topo)  # value inputs given: specialized to them
        net.reshape({k: v.shape for k, v in given.items()}, {k: given[k] for k in topo.value_inputs})
    feeds, filled = _feeds(net, given)
    for name in filled:
        print(f"input '{name}': not given, filled with seeded random data {feeds[name].shape} {feeds[name].dtype}")
    outs = net.run(feeds)
    for name, a in outs.items():
        print(f"output '{name}': shape {a.shape} {a.dtype}, min {a.min():.6g}, max {a.max():.6g}")
    if args.output:
        np.savez(args.output, **outs)  # type: ignore[arg-type]
        print(f"wrote {args.output}")
    return 0


# ----- compile ----------------------------------------------------------------------------------------------------
def _compile(args: argparse.Namespace) -> int:
    from . import BuildOptions, Engine, Program
    from .frontend import load_onnx

    engine = Engine(args.device)
    topo = load_onnx(args.model, _batch_shapes(args.model, args.batch, _shapes(args.shape)) or None)
    _require_static(topo)
    program = Program(engine, topo, BuildOptions(inference_precision=args.precision, tuning=args.tuning))
    t0 = time.perf_counter()
    size = program.save(args.output)
    print(f"device: {engine.info.spec} {engine.info.name} ({engine.info.platform_version})")
    print(f"program build: {program.build_time_ms:.0f} ms, {program.kernels_built} kernels; saved in "
          f"{(time.perf_counter() - t0) * 1e3:.0f} ms")
    print(f"wrote {args.output}: {size / 2**20:.1f} MiB")
    return 0


# ----- benchmark --------------------------------------------------------------------------------------------------
def _positive(text: str) -> int:
    """argparse type: an int >= 1."""
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text}")
    return n


def _batch_shapes(model: str, batch: int | None, shapes: dict[str, tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    """``shapes`` with the batch dimension of every input whose other dimensions are known set to ``batch``."""
    if batch and is_program_file(model):
        raise SystemExit(f"{model} is a compiled program: its input shapes are fixed (drop --shape/--batch)")
    if batch:
        from .frontend.onnx import graph_inputs

        for name, dims in graph_inputs(model).items():
            base = list(shapes.get(name, dims))
            if base and None not in base[1:]:
                shapes[name] = (batch, *(int(d) for d in base[1:] if d is not None))
    return shapes


def _benchmark(args: argparse.Namespace) -> int:

    shapes = _batch_shapes(args.model, args.batch, _shapes(args.shape))
    engine, _, program = _build(args.model, args.device, shapes, tuning=args.tuning, tuning_cache=args.tuning_cache)
    print(f"device: {engine.info.spec} {engine.info.name} ({engine.info.platform_version})")
    print(_build_line(program))
    net = _network(engine, program)
    feeds, _ = _feeds(net, {})
    outs = net.run(feeds)  # warm-up
    if args.check:
        if is_program_file(args.model):
            raise SystemExit("--check compares with onnxruntime on the ONNX model: give the model, not a compiled "
                             "program file")
        _check_against_onnxruntime(args.model, feeds, outs)
    if args.mode == "throughput":
        if getattr(program, "is_partitioned", False):
            raise SystemExit("--mode throughput runs one Program; this model has host stages (latency mode "
                             "only)")
        return _benchmark_throughput(args, engine, program, feeds)
    times: list[float] = []
    t_end = time.perf_counter() + (args.time or 0.0)
    n = args.niter if args.niter else (None if args.time else 10)
    while (n is not None and len(times) < n) or (n is None and time.perf_counter() < t_end):
        t0 = time.perf_counter()
        net.run(feeds)
        times.append((time.perf_counter() - t0) * 1e3)
    batch = next(iter(feeds.values())).shape[0] if feeds else 1
    t = np.array(times)
    report = {"model": str(args.model), "device": engine.info.spec,
              "build_ms": getattr(program, "build_time_ms", None), "iterations": len(times), "batch": batch,
              "latency_ms": {
                  "min": float(t.min()), "median": float(np.median(t)), "p90": float(np.percentile(t, 90)),
                  "max": float(t.max())}, "throughput_per_s": float(batch * 1e3 / np.median(t))}
    lat = report["latency_ms"]
    print(f"latency over {len(times)} runs (ms): min {lat['min']:.2f}  median {lat['median']:.2f}  "
          f"p90 {lat['p90']:.2f}  max {lat['max']:.2f}")
    print(f"throughput: {report['throughput_per_s']:.2f} inferences/s (batch {batch})")
    if args.pc:
        report["per_primitive"] = _print_pc(net)
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=2)
        print(f"wrote {args.report}")
    return 0


def _benchmark_throughput(args: argparse.Namespace, engine: Any, program: Any, feeds: dict[str, np.ndarray]) -> int:
    """``--mode throughput``: ``--requests`` inferences in flight (an AsyncInferQueue) for -n runs or -t seconds;
    images/s = batch x completed / wall time, and the per-request latency (start to outputs on the host)."""
    from .infer_queue import measure_throughput

    r = measure_throughput(program, feeds, requests=args.requests, niter=args.niter, seconds=args.time)
    lat = r["latency_ms"]
    print(f"throughput mode, {r['requests']} requests in flight: {r['completed']} inferences in "
          f"{r['seconds']:.2f} s")
    print(f"per-request latency (ms): min {lat['min']:.2f}  median {lat['median']:.2f}  p90 {lat['p90']:.2f}  "
          f"max {lat['max']:.2f}")
    print(f"throughput: {r['images_per_s']:.2f} images/s (batch {r['batch']})")
    if args.report:
        report = {"model": str(args.model), "device": engine.info.spec, "build_ms": program.build_time_ms,
                  "mode": "throughput", **r}
        with open(args.report, "w") as f:
            json.dump(report, f, indent=2)
        print(f"wrote {args.report}")
    return 0


def _print_pc(net: Any) -> list[dict[str, Any]]:
    info = net.get_profiling_info()
    total = sum(p.time_us for p in info if p.status == "EXECUTED") or 1.0
    rows = []
    print(f"{'id':<40} {'type':<16} {'kernel':<28} {'status':<13} {'time ms':>9} {'share':>6}")
    for p in sorted(info, key=lambda p: -p.time_us):
        share = p.time_us / total if p.status == "EXECUTED" else 0.0
        if p.type != "data":  # constants are listed in the report, not in the table
            print(f"{p.id[:40]:<40} {p.type:<16} {p.kernel[:28]:<28} {p.status:<13} {p.time_us / 1e3:9.3f} "
                  f"{100 * share:5.1f}%")
        rows.append({"id": p.id, "type": p.type, "kernel": p.kernel, "status": p.status, "time_us": p.time_us,
                     "share": share})
    print(f"total device time: {total / 1e3:.2f} ms")
    return rows


def _check_against_onnxruntime(model: str, feeds: dict[str, np.ndarray], outs: dict[str, np.ndarray]) -> None:
    try:
        import onnxruntime as ort
    except ImportError:
        print("check: onnxruntime is not installed; skipped")
        return
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    ort_feeds = {i.name: feeds[i.name].astype(np.int64) if "int64" in i.type else feeds[i.name]
                 for i in sess.get_inputs()}
    ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, ort_feeds)))
    for name, r in ref.items():
        err = float(np.abs(outs[name] - r).max() / max(np.abs(r).max(), 1e-30))
        print(f"check vs onnxruntime: output '{name}' relative error {err:.2e}")
        if err > 1e-3:
            raise SystemExit(f"output '{name}' differs from onnxruntime: relative error {err:.2e}")


# ----- dump-graph -------------------------------------------------------------------------------------------------
def _tune(args: argparse.Namespace) -> int:
    """Build every model at every batch with BuildOptions(tuning="tune"): time the kernel variants of each layer
    that has no stored winner and write the winners to the tuning cache."""
    from kernel_selector.tuning_cache import TuningCache

    from . import Engine
    from .kernel_cache import default_tuning_cache_path

    engine = Engine(args.device)
    path = args.cache or str(default_tuning_cache_path())
    def kernel_entries() -> int:  # winners only, not the per-device facts ("device:load_form")
        return sum(not k.startswith("device:") for k in TuningCache(path).entries(engine.info))

    before = kernel_entries()
    for model in args.models:
        for batch in args.batch:
            t0 = time.perf_counter()
            _build(model, None, _batch_shapes(model, batch, {}), tuning="tune", tuning_cache=path, engine=engine,
                   warm_start=False)
            print(f"{model} batch {batch or 'as given'}: tuned in {time.perf_counter() - t0:.1f} s")
    after = kernel_entries()
    print(f"{path}: {after} entries for {engine.info.name} ({after - before} new)")
    return 0


def _cache(args: argparse.Namespace) -> int:
    """``cache info``: folder, entries, bytes of the kernel binary cache; ``cache clear``: delete its entries."""
    from .kernel_cache import KernelCache
    from .warm_start import WarmStartCache

    cache = KernelCache.for_engine(args.dir)
    warm = WarmStartCache(cache.directory / "programs")
    if args.action == "clear":
        print(f"{cache.directory}: {cache.clear()} entries deleted, and PoCL's cache under it")
        print(f"{warm.directory}: {warm.clear()} compiled programs deleted")
        return 0
    i = cache.info()
    print(f"{i['directory']}: {i['entries']} entries, {i['bytes'] / 2**20:.1f} MiB; PoCL's own cache "
          f"{i['pocl_bytes'] / 2**20:.1f} MiB{'' if i['enabled'] else ' (off: CLDNN_PY_NO_CACHE is set)'}")
    w = warm.info()
    print(f"{w['directory']}: {w['entries']} compiled programs (warm start), {w['bytes'] / 2**20:.1f} MiB"
          f"{'' if w['enabled'] else ' (off: CLDNN_PY_WARM_START=0 or CLDNN_PY_NO_CACHE)'}")
    return 0


def _dump_graph(args: argparse.Namespace) -> int:
    from .pass_manager import to_dot

    if args.fallback != "none":
        from .frontend import load_onnx

        topo = load_onnx(args.model, _shapes(args.shape) or None, fallback=args.fallback)
        if topo.is_partitioned:
            return _dump_partition(args, topo)
    _, _, program = _build(args.model, args.device, _shapes(args.shape))
    if getattr(program, "is_partitioned", False):
        return _dump_partition(args, program)
    with open(args.output, "w") as f:
        f.write(to_dot(program))
    print(f"wrote {args.output}: {len(program.nodes)} nodes, {program.kernels_built} kernels")
    return 0


def _dump_partition(args: argparse.Namespace, topo: Any) -> int:
    """A partitioned model: ``FILE.dot`` holds the stages (boxes: engine, grey: onnxruntime; edges: the tensors that
    cross), ``FILE.<stage>.dot`` each static engine stage's compiled graph; the stages are printed."""
    from . import Engine, Program
    from .partitioned_network import EngineStage
    from .pass_manager import to_dot

    stem = args.output[:-4] if args.output.endswith(".dot") else args.output
    lines = ["digraph partition {", "  rankdir=TB;"]
    made: dict[str, str] = {}
    for s in topo.stages:
        style = "shape=box" if isinstance(s, EngineStage) else "shape=box, style=filled, fillcolor=lightgrey"
        label = f"{s.name}\\n" + "\\n".join(op.replace('"', "'") for op in s.ops[:12])
        lines.append(f'  "{s.name}" [{style}, label="{label}"];')
        for t in s.inputs:
            src = made.get(t, "inputs")
            lines.append(f'  "{src}" -> "{s.name}" [label="{t.replace(chr(34), chr(39))}"];')
        made.update({t: s.name for t in s.outputs})
    lines.append("}")
    with open(args.output, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(topo.describe())
    engine = Engine(args.device)
    for s in topo.stages:
        if isinstance(s, EngineStage) and not s.topology.is_dynamic:
            with open(f"{stem}.{s.name}.dot", "w") as f:
                f.write(to_dot(Program(engine, s.topology)))  # type: ignore[arg-type]  # as _dump_graph
    print(f"wrote {args.output}: {len(topo.stages)} stages, and {stem}.<stage>.dot for each static engine stage")
    return 0


def _zoo(args: argparse.Namespace) -> int:
    from .tools import zoo

    return zoo.main(args.args)  # reached only through build_parser().parse_args; main() hands zoo its argv


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with its sub-commands."""
    p = argparse.ArgumentParser(prog="cldnn-py", description="clDNN-style inference engine on OpenCL")
    sub = p.add_subparsers(dest="command", required=True)
    dv = sub.add_parser("devices", help="list OpenCL devices")
    dv.add_argument("--probe", action="store_true", help="measure which vector load form each device compiles "
                    "well (cldnn_py.device_probe) and whether its vector registers are narrow "
                    "(cldnn_py.register_probe); store both in the tuning cache")
    dv.add_argument("--cache", metavar="FILE.json", help="tuning cache to write (default: the user's)")
    dv.set_defaults(func=_devices)
    sub.add_parser("version", help="print versions").set_defaults(func=_version)

    def model_cmd(name: str, help: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help)
        sp.add_argument("model", help="ONNX model file")
        sp.add_argument("--device", help="cl:P:D or cpu (default: see `cldnn-py devices`)")
        sp.add_argument("--shape", action="append", metavar="NAME=DIMS",
                        help="fix an input's shape, e.g. x=1,3,224,224")
        if name in ("run", "dump-graph"):
            sp.add_argument("--fallback", choices=["none", "onnxruntime"], default="none",
                            help="run the nodes the engine lacks in onnxruntime (partitioning; default: refuse)")
        return sp

    r = model_cmd("run", "run a model once on given or random inputs")
    r.add_argument("--input", action="append", metavar="NAME=FILE.npy", help="an input array (repeatable)")
    r.add_argument("--output", metavar="OUT.npz", help="write all outputs to this .npz")
    r.set_defaults(func=_run)

    b = model_cmd("benchmark", "measure build time, latency and throughput")
    g = b.add_mutually_exclusive_group()
    g.add_argument("-n", "--niter", type=int, help="number of timed runs (default 10)")
    g.add_argument("-t", "--time", type=float, help="run for this many seconds")
    b.add_argument("--batch", type=int, help="set the batch dimension of every input")
    b.add_argument("--pc", action="store_true", help="per-primitive device times")
    b.add_argument("--report", metavar="FILE.json", help="write the figures as JSON")
    b.add_argument("--check", action="store_true", help="compare the outputs with onnxruntime first")
    b.add_argument("--mode", choices=["latency", "throughput"], default="latency",
                   help="latency: one run at a time (default); throughput: --requests runs in flight, images/s")
    b.add_argument("--requests", type=_positive, default=2, metavar="N",
                   help="inferences in flight in throughput mode (default 2)")
    b.add_argument("--tuning", choices=["off", "cache", "tune"], default="cache",
                   help="kernel choice: priority rules only, the tuning cache (default), or tune first")
    b.add_argument("--tuning-cache", metavar="FILE.json", help="the tuning cache file (default: the user's)")
    b.set_defaults(func=_benchmark)

    cp = sub.add_parser("compile", help="build a model's Program and save it to a file (Program.load, or give the "
                        "file to run/benchmark in place of the model)")
    cp.add_argument("model", help="ONNX model file")
    cp.add_argument("-o", "--output", required=True, metavar="FILE.cldnn", help="the program file to write")
    cp.add_argument("--device", help="cl:P:D or cpu (default: see `cldnn-py devices`); the file loads on it only")
    cp.add_argument("--shape", action="append", metavar="NAME=DIMS", help="fix an input's shape, e.g. x=1,3,224,224")
    cp.add_argument("--batch", type=int, help="set the batch dimension of every input")
    cp.add_argument("--precision", choices=["f32", "f16"], help="inference precision (default: the model's)")
    cp.add_argument("--tuning", choices=["off", "cache", "tune"], default="cache",
                    help="kernel choice: priority rules only, the tuning cache (default), or tune first")
    cp.set_defaults(func=_compile)

    c = sub.add_parser("cache", help="the kernel binary and warm-start caches: where, how big; or empty them")
    c.add_argument("action", choices=["info", "clear"])
    c.add_argument("--dir", help="cache folder (default: CLDNN_PY_CACHE_DIR or the platformdirs user cache)")
    c.set_defaults(func=_cache)

    t = sub.add_parser("tune", help="time the kernel variants of models' layers and store the winners")
    t.add_argument("models", nargs="+", help="ONNX model files")
    t.add_argument("--batch", type=int, nargs="+", default=[0],
                   help="batch sizes to tune (default: the model's own)")
    t.add_argument("--cache", metavar="FILE.json", help="tuning cache to write (default: the user's)")
    t.add_argument("--device", help="cl:P:D (default: see `cldnn-py devices`)")
    t.set_defaults(func=_tune)

    z = sub.add_parser("zoo", help="write the onnx wheel's nine real network graphs with seeded random weights",
                       add_help=False)
    z.add_argument("args", nargs=argparse.REMAINDER, help="see `cldnn-py zoo --help`")
    z.set_defaults(func=_zoo)

    from .integrations.batch_cli import add_parser as add_batch

    add_batch(sub)

    d = model_cmd("dump-graph", "write the compiled graph as Graphviz DOT")
    d.add_argument("-o", "--output", required=True, metavar="FILE.dot")
    d.set_defaults(func=_dump_graph)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``cldnn-py`` console script; returns the exit status. Errors print one line, exit 2."""
    from .errors import CldnnError

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["zoo"]:  # the zoo tool has its own argparse; hand it the rest as is
        from .tools import zoo

        return zoo.main(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except CldnnError as e:
        print(f"cldnn-py {args.command}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
