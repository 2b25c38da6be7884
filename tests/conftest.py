"""Shared fixtures. Each pytest-xdist worker gets its own POCL_CACHE_DIR (parallel PoCL processes sharing one
cache have crashed PoCL: pocl#1480); it is set before pyopencl is imported anywhere. The user's tuning cache is
never read or written by tests: CLDNN_PY_TUNING_CACHE points at a per-worker file (the shipped cache still applies,
as it does for users)."""

from __future__ import annotations

import os
import pathlib
import tempfile

_worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
_root = pathlib.Path(os.environ.get("CLDNN_PY_TEST_CACHE", tempfile.gettempdir())) / "cldnn_py_test_pocl"
os.environ["POCL_CACHE_DIR"] = str(_root / _worker)
os.makedirs(os.environ["POCL_CACHE_DIR"], exist_ok=True)
os.environ["CLDNN_PY_TUNING_CACHE"] = str(_root / f"tuning_{_worker}_{os.getpid()}.json")
os.environ.setdefault("CLDNN_PY_CACHE_DIR", str(_root / "kernels"))  # the kernel binary cache, shared by workers

import numpy as np  # noqa: E402
import pytest  # noqa: E402

GENERATED = pathlib.Path(__file__).parent / ".generated"  # git-ignored; seeded models are written here


# Engines every engine-generic test runs on (parity, issue 6); CLDNN_PY_TEST_ENGINES=ocl (or cpu) narrows it.
ENGINES = [e for e in os.environ.get("CLDNN_PY_TEST_ENGINES", "ocl,cpu").split(",") if e]


@pytest.fixture(scope="session", params=ENGINES)
def engine(request):
    """One Engine per worker and engine kind: the default OpenCL device ("ocl") and the CPU engine ("cpu").
    Tests of engine-specific things (an OpenCL kernel, the tuning cache, the device probe) use ``ocl_engine``."""
    import cldnn_py as cl

    return cl.Engine("cpu") if request.param == "cpu" else cl.Engine()


@pytest.fixture(scope="session")
def ocl_engine():
    """The default OpenCL Engine, for tests of OpenCL-only things."""
    import cldnn_py as cl

    return cl.Engine()


@pytest.fixture
def rng(request):
    """A fresh random generator per test; the seed is printed so a failure can be replayed."""
    seed = int.from_bytes(os.urandom(4), "little")
    print(f"rng seed for {request.node.nodeid}: {seed}")
    return np.random.default_rng(seed)


@pytest.fixture(scope="session")
def generated_dir():
    """The git-ignored folder for generated models and weights."""
    GENERATED.mkdir(exist_ok=True)
    return GENERATED
