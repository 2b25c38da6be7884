"""Shared by the start-up benchmarks (build_time.py, cpu_startup.py): the zoo model on disk, and one measurement in
a fresh interpreter whose only shared state is the cache folders given in its environment."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def zoo_model(name: str) -> pathlib.Path:
    """``.cache/models/<name>_b1_s0.onnx``, written by cldnn_py.tools.zoo when missing."""
    sys.path.insert(0, str(ROOT))
    from cldnn_py.tools import zoo

    path = ROOT / ".cache" / "models" / f"{name}_b1_s0.onnx"
    if not path.exists():
        zoo.main(["--out", str(path.parent), "--models", name])
    return path


def run_child(code: str, model: pathlib.Path, env: dict[str, str], drop: tuple[str, ...] = (),
              args: tuple[str, ...] = ()) -> dict[str, float]:
    """Run ``python -c code model *args`` with ``env`` over this process's environment (minus ``drop``); the JSON
    dict its last output line holds. Raises CalledProcessError if the child fails."""
    full = {k: v for k, v in {**os.environ, **env}.items() if k not in drop}
    out = subprocess.run([sys.executable, "-c", code, str(model), *args], env=full, capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    return json.loads(out.strip().splitlines()[-1])
