"""Shared by the start-up benchmarks (build_time.py, cpu_startup.py): the zoo model on disk, and one measurement in
a fresh interpreter whose only shared state is the cache folders given in its environment."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def zoo_model(name: str, batch: int = 1) -> pathlib.Path:
    """``.cache/models/<name>_b<batch>_s0.onnx``, written by cldnn_py.tools.zoo when missing."""
    sys.path.insert(0, str(ROOT))
    from cldnn_py.tools import zoo

    path = ROOT / ".cache" / "models" / f"{name}_b{batch}_s0.onnx"
    if not path.exists():
        zoo.main(["--out", str(path.parent), "--models", name, "--batch", str(batch)])
    return path


_BYTECODE_READY = False


def compile_bytecode() -> None:
    """Byte-compile the package's modules once (``python -m compileall``), as ``pip install`` does: a start-up
    measured from a source checkout under ``PYTHONDONTWRITEBYTECODE`` (set on some CI and sandbox machines) would
    otherwise count Python compiling ~80 modules' source again in every child (55 ms of a 280 ms warm start of
    ResNet-50), which no installed package pays."""
    global _BYTECODE_READY
    if not _BYTECODE_READY:
        subprocess.run([sys.executable, "-m", "compileall", "-q", "cldnn_py", "kernel_selector"], cwd=ROOT,
                       check=True, capture_output=True)
        _BYTECODE_READY = True


def run_child(code: str, model: pathlib.Path, env: dict[str, str], drop: tuple[str, ...] = (),
              args: tuple[str, ...] = ()) -> dict[str, float]:
    """Run ``python -c code model *args`` with ``env`` over this process's environment (minus ``drop``, and minus
    ``PYTHONDONTWRITEBYTECODE``: the child reads the byte-code :func:`compile_bytecode` wrote first, as an installed
    package's interpreter does); the JSON dict its last output line holds. Raises CalledProcessError if the child
    fails."""
    compile_bytecode()
    full = {k: v for k, v in {**os.environ, **env}.items() if k not in drop and k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run([sys.executable, "-c", code, str(model), *args], env=full, capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    return json.loads(out.strip().splitlines()[-1])
