"""f16 storage against f32 on the zoo's networks: accuracy, memory and speed (issue 18).

    python benchmarks/precision.py [--models all | resnet50 ...] [--inputs 32] [--runs 10] [--device cl:1:0]
                                   [--json .cache/precision.json]

For each model (``cldnn_py.tools.zoo`` and ``real_shapes``, seeded weights, batch 1, its logits a network output)
two Programs are built on the device from the same topology, ``BuildOptions(inference_precision="f32")`` and
``"f16"`` (half storage of activations and weights where a kernel takes it; float arithmetic). Both run the same
``--inputs`` seeded N(0, 1) images; per image the logits are compared: relative error max |l16 - l32| / max |l32|
and whether the top-1 class is the same. Then ``--runs`` interleaved timed runs of each (median wall ms of
``Network.run``) and the device time per run (sum of the kernels' OpenCL profiling times), the memory of each
(``Network.memory_info``: activations and constants, MiB) and how many of the kernel-running layers store f16.

Printed: one row per model; the JSON holds the same. Exit status 1 when a model's worst relative error exceeds
``--tolerance`` (1e-2, the issue's bound) or its top-1 differs on any image.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from cldnn_py.tools import real_shapes, zoo  # noqa: E402

ALL = zoo.MODELS + real_shapes.MODELS


def _model(name: str) -> tuple[Any, str, str, tuple[int, ...]]:
    """(ONNX model with logits output, input name, logits name, input shape) of a zoo or real-shapes model."""
    if name in zoo.MODELS:
        return zoo.make_model(name, 0, 1), zoo.input_name(name), zoo.logits_name(name), zoo.input_shape(name, 1)
    return (real_shapes.make_model(name), real_shapes.input_name(name), real_shapes.logits_name(name),
            real_shapes.input_shape(name, 1))


def _device_ms(net: Any) -> float:
    return sum(e.time_us for e in net.get_profiling_info()) / 1e3


def _by_kind(net: Any) -> dict[str, float]:
    """Device ms of the last run per primitive type (fully_connected, convolution ...)."""
    out: dict[str, float] = {}
    for e in net.get_profiling_info():
        if e.status == "EXECUTED":
            out[e.type] = out.get(e.type, 0.0) + e.time_us / 1e3
    return out


def measure(engine: Any, name: str, inputs: int, runs: int) -> dict[str, Any]:
    """One model's row (module docstring)."""
    import cldnn_py as cl

    model, in_name, logits, shape = _model(name)
    topo = cl.load_onnx(model)
    nets = {p: cl.Network(cl.Program(engine, topo, cl.BuildOptions(inference_precision=p, outputs=[logits])))
            for p in ("f32", "f16")}
    rng = np.random.default_rng(0)
    errs, same = [], 0
    for _ in range(inputs):
        x = rng.standard_normal(shape).astype(np.float32)
        a = nets["f32"].run({in_name: x})[logits].astype(np.float64).reshape(-1)
        b = nets["f16"].run({in_name: x})[logits].astype(np.float64).reshape(-1)
        errs.append(float(np.abs(a - b).max() / max(np.abs(a).max(), 1e-30)))
        same += int(a.argmax() == b.argmax())
    x = rng.standard_normal(shape).astype(np.float32)
    wall: dict[str, list[float]] = {"f32": [], "f16": []}
    dev: dict[str, list[float]] = {"f32": [], "f16": []}
    kinds: dict[str, list[dict[str, float]]] = {"f32": [], "f16": []}
    for _ in range(runs):
        for p, net in nets.items():
            net.run({in_name: x})
            t = time.perf_counter()
            net.run({in_name: x})
            wall[p].append((time.perf_counter() - t) * 1e3)
            dev[p].append(_device_ms(net))
            kinds[p].append(_by_kind(net))
    row: dict[str, Any] = {"model": name, "max_rel_err": max(errs), "top1_same": same, "inputs": inputs}
    for p, net in nets.items():
        mem = net.memory_info()
        prog = net.program
        ran = [n for n in prog.order if n.impl is not None]
        row[p] = {"wall_ms": float(np.median(wall[p])), "device_ms": float(np.median(dev[p])),
                  "activations_mib": mem["activations"] / 2**20, "constants_mib": mem["constants"] / 2**20,
                  "f16_layers": sum(n.layout().dtype == cl.DataType.f16 for n in ran), "layers": len(ran),
                  "device_ms_by_kind": {k: float(np.median([d.get(k, 0.0) for d in kinds[p]]))
                                        for k in kinds[p][0]}}
    return row


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison; returns the exit status (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=["all"])
    ap.add_argument("--inputs", type=int, default=32)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--device", default=None, help="cldnn_py device spec (default: the engine's default device)")
    ap.add_argument("--tolerance", type=float, default=1e-2)
    ap.add_argument("--by-kind", action="store_true", help="also print device ms per primitive type (median)")
    ap.add_argument("--json", default=str(ROOT / ".cache" / "precision.json"))
    args = ap.parse_args(argv)
    import cldnn_py as cl

    names = ALL if args.models == ["all"] else args.models
    engine = cl.Engine(args.device)
    print(f"device: {engine.info.name}", file=sys.stderr)
    print("| model | max rel err | top-1 same | f32 ms (device) | f16 ms (device) | f16/f32 device | "
          "activations MiB f32 -> f16 | constants MiB f32 -> f16 | f16 layers |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows, bad = [], False
    for name in names:
        r = measure(engine, name, args.inputs, args.runs)
        rows.append(r)
        a, b = r["f32"], r["f16"]
        print(f"| {name} | {r['max_rel_err']:.1e} | {r['top1_same']}/{r['inputs']} | {a['wall_ms']:.2f} "
              f"({a['device_ms']:.2f}) | {b['wall_ms']:.2f} ({b['device_ms']:.2f}) | "
              f"{b['device_ms'] / max(a['device_ms'], 1e-9):.2f} | {a['activations_mib']:.1f} -> "
              f"{b['activations_mib']:.1f} | {a['constants_mib']:.1f} -> {b['constants_mib']:.1f} | "
              f"{b['f16_layers']}/{b['layers']} |", flush=True)
        if args.by_kind:
            for k in sorted(a["device_ms_by_kind"], key=lambda k: -a["device_ms_by_kind"][k]):
                t32, t16 = a["device_ms_by_kind"][k], b["device_ms_by_kind"].get(k, 0.0)
                print(f"|   {k} | | | {t32:.2f} | {t16:.2f} | | | | |")
        bad |= r["max_rel_err"] > args.tolerance or r["top1_same"] != r["inputs"]
    out = pathlib.Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"device": engine.info.name, "rows": rows}, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
