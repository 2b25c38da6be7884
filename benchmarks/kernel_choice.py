"""Which kernel (and tuned variant) the selector picks for every node of the zoo's networks, on each engine.

    python benchmarks/kernel_choice.py [--models ...] [--devices cl:0:0 cpu] [--out .cache/kernel_choice.json]
    python benchmarks/kernel_choice.py --compare before.json after.json

A refactoring that must not change behaviour is checked with it: record before, record after, ``--compare``
prints every node whose kernel, output layout or compiled OpenCL source changed (SHA-1 of the jit header and template
with C comments and the entry point's name removed, so a reworded comment does not count), and exits 1 if any did.
Models are the seeded zoo models (batch 1, seed 0), written once to ``.cache/models``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

MODELS = ("resnet50", "alexnet", "googlenet", "squeezenet", "densenet121", "inception_v2", "shufflenet",
          "vgg19", "zfnet512")


def code_hash(source: str) -> str:
    """12 hex digits of SHA-1 over an OpenCL source without comments, entry-point names and blank lines ("" for a
    CPU kernel)."""
    if not source:
        return ""
    text = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"\b(\w+)__[0-9a-f]{12}\b", r"\1", text)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return hashlib.sha1("\n".join(lines).encode()).hexdigest()[:12]


def record(models: list[str], devices: list[str]) -> dict[str, dict[str, list[str]]]:
    """{"<device>/<model>": {node id: [kernel name, layout, code hash per enqueue...]}} for the default
    BuildOptions."""
    import cldnn_py as cl
    from cldnn_py.tools import zoo

    out: dict[str, dict[str, list[str]]] = {}
    mdir = ROOT / ".cache" / "models"
    for dev in devices:
        engine = cl.Engine(dev)
        for m in models:
            path = mdir / f"{m}_b1_s0.onnx"
            if not path.exists():
                zoo.main(["--out", str(mdir), "--models", m])
            prog = cl.Program(engine, cl.load_onnx(str(path)))
            rows: dict[str, list[str]] = {}
            for node in prog.order:
                if node.impl is None:
                    continue
                codes = [code_hash(getattr(k, "source", "")) for k in node.impl.kernels]
                rows[node.id] = [node.impl.kernel_name, str(node.layout()), *codes]
            out[f"{dev}/{m}"] = rows
            print(f"{dev}/{m}: {len(rows)} kernels", file=sys.stderr)
    return out


def compare(a: dict[str, dict[str, list[str]]], b: dict[str, dict[str, list[str]]]) -> int:
    """Prints the differences; the number of nodes that differ."""
    bad = 0
    for key in sorted(set(a) | set(b)):
        ra, rb = a.get(key, {}), b.get(key, {})
        for nid in sorted(set(ra) | set(rb)):
            if ra.get(nid) != rb.get(nid):
                bad += 1
                print(f"{key} {nid}: {ra.get(nid)} -> {rb.get(nid)}")
    print(f"{bad} node(s) differ")
    return bad


def main(argv: list[str] | None = None) -> int:
    """CLI entry; see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=list(MODELS))
    ap.add_argument("--devices", nargs="+", default=["cl", "cpu"])
    ap.add_argument("--out", default=str(ROOT / ".cache" / "kernel_choice.json"))
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args(argv)
    if args.compare:
        a, b = (json.loads(pathlib.Path(p).read_text()) for p in args.compare)
        return 1 if compare(a, b) else 0
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(args.out).write_text(json.dumps(record(args.models, args.devices), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
