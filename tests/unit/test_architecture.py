"""The import-linter contracts of pyproject.toml ([tool.importlinter]): one test per contract, so a failure names it.

Contracts that the tree does not meet yet are expected failures with the reason (remove the entry when the work
named there lands; a contract that starts passing is reported as XPASS).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CONTRACTS = ["layers", "kernel-selector-leaf", "ops-leaf", "passes-below-runtime", "passes-independent",
             "fusion-rules-independent", "no-cli-in-library"]

KNOWN_BROKEN: dict[str, str] = {}  # contract id -> why the tree does not meet it yet (none now)


def _lint_imports() -> str:
    exe = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(exe).exists():
        pytest.skip("import-linter is not installed (pip install import-linter, or the dev extra)")
    return exe


@pytest.mark.parametrize("contract", CONTRACTS)
def test_contract(contract, request):
    exe = _lint_imports()
    if contract in KNOWN_BROKEN:
        request.applymarker(pytest.mark.xfail(reason=KNOWN_BROKEN[contract], strict=False))
    r = subprocess.run([exe, "--contract", contract, "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def test_every_contract_is_tested():
    tomllib = pytest.importorskip("tomllib", reason="tomllib needs Python 3.11")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert [c["id"] for c in config["tool"]["importlinter"]["contracts"]] == CONTRACTS


@pytest.mark.parametrize("module", ["kernel_selector", "kernel_selector.kernels", "cldnn_py.ops", "cldnn_py"])
def test_each_package_imports_first_in_a_fresh_interpreter(module):
    """kernel_selector imports cldnn_py.layout, whose package __init__ imports the runtime: a module-level import of
    kernel_selector in the runtime's import chain (engines, program) would make ``import kernel_selector`` fail."""
    r = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]


def test_kernel_module_names_tell_the_engine():
    """A module named ``<prim>_kernel_cpu_*`` / ``cpu_*`` registers CPU-engine kernels only and every other module
    OpenCL ones only: an OpenCL engine imports only the latter (no numba import at its start)."""
    import sys

    import kernel_selector  # noqa: F401

    sm = sys.modules["kernel_selector.selector"]
    sm.candidates("convolution")  # every module of every engine kind
    wrong = [(type(k).__module__, k.engine, k.name) for ks in sm._REGISTRY.values() for k in ks
             if type(k).__module__.startswith("kernel_selector.kernels.")  # not a test's own kernel
             and sm.is_cpu_module(type(k).__module__) != (k.engine == "cpu")]
    assert not wrong and sum(len(v) for v in sm._REGISTRY.values()) > 100


def test_an_opencl_build_does_not_import_numba():
    code = ("import sys, numpy as np, cldnn_py as cl\n"
            "t = cl.Topology(cl.InputLayout('x', cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 4))))\n"
            "t.add(cl.Activation('y', 'x', 'relu'))\n"
            "cl.Network(cl.Engine(), t).run({'x': np.arange(-2, 2, dtype=np.float32).reshape(1, 4)})\n"
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "False"
