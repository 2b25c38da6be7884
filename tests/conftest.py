"""Shared fixtures. Each pytest-xdist worker gets its own POCL_CACHE_DIR (parallel PoCL processes sharing one
cache have crashed PoCL: pocl#1480); it is set before pyopencl is imported anywhere. The user's tuning cache is
never read or written by tests: CLDNN_PY_TUNING_CACHE points at a per-worker file (the shipped cache still applies,
as it does for users). ``OCLGRIND_LOG`` (a per-worker file) and ``OCLGRIND_DATA_RACES=1`` are set here too, for
tests/oclgrind: Oclgrind reads them when pyopencl first lists the platforms.

Random data: the ``rng`` fixture seeds each test's generator from the test's node id (``zlib.crc32`` of e.g.
``tests/ocl/test_pooling.py::test_pooling_matches_reference[case0-max]``), so re-running a failing test id replays
the same data, whatever else runs and on whichever xdist worker. The seed is printed (shown on failure).
``CLDNN_PY_TEST_SEED=<int>`` is mixed into every seed, to vary all of them at once (e.g. a nightly run with a
fresh value); a failure under it is replayed by running the test id with the same ``CLDNN_PY_TEST_SEED``.

Build options: most of the suite's time on PoCL is PoCL compiling kernels (each test's shapes are jit constants, so
nearly every test builds new programs). Tests not marked ``network`` build with ``-cl-opt-disable``
(``CLDNN_PY_CL_OPTIONS``; about 2x faster builds, slower kernels on their small shapes); the ``network`` tests (the
zoo, ResNet-50, AlexNet, the real-model shapes, soak, fuzz) build optimized, as users do, so every kernel they
select is also checked as compiled with the optimizer, except cases marked ``unoptimized_build`` (four of the nine zoo
networks; the GPU tier forced on PoCL but for ResNet-50: what they check is the kernels' semantics, which a GPU's
own compiler builds). The ``ray`` tests
build optimized too: their actors (started before any test) build as users do, and the tests compare them bit for
bit with a Network built in the test process. ``CLDNN_PY_TEST_CL_OPT=1`` builds the whole suite optimized
(a nightly run); a ``CLDNN_PY_CL_OPTIONS`` of the user's own is kept as it is."""

from __future__ import annotations

import os
import pathlib
import tempfile
import zlib

_worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
_root = pathlib.Path(os.environ.get("CLDNN_PY_TEST_CACHE", tempfile.gettempdir())) / "cldnn_py_test_pocl"
os.environ["POCL_CACHE_DIR"] = str(_root / _worker)
# private (0700), as cldnn_py makes its cache folders (cldnn_py/safe_dirs.py): the caches hold code that PoCL loads
os.makedirs(_root, mode=0o700, exist_ok=True)
os.makedirs(os.environ["POCL_CACHE_DIR"], mode=0o700, exist_ok=True)
os.environ["CLDNN_PY_TUNING_CACHE"] = str(_root / f"tuning_{_worker}_{os.getpid()}.json")
os.environ.setdefault("CLDNN_PY_CACHE_DIR", str(_root / "kernels"))  # the kernel binary cache, shared by workers
# the warm-start cache (cldnn_py/warm_start.py) would store every model a test compiles: off, except in its own tests
os.environ.setdefault("CLDNN_PY_WARM_START", "0")
# two test workers share the 2 cores, each with its own PoCL workers: leave them unpinned (cldnn_py/cpu_pinning.py)
os.environ.setdefault("CLDNN_PY_CPU_PINNING", "0")
# Oclgrind (tests/oclgrind) reads its OCLGRIND_* settings once, when pyopencl first lists the platforms, so they are
# set here, before anything imports pyopencl, in every worker: findings go to a per-process log that
# tests/oclgrind/conftest.py checks after each test; race detection on. They only affect the Oclgrind platform.
# Uninitialized-value checks on too (OclEngine then builds with -cl-opt-disable on the simulator: see its
# default_build_options).
os.environ.setdefault("OCLGRIND_UNINITIALIZED", "1")
# A user's own OCLGRIND_LOG is kept; ours is replaced in each worker (workers inherit the controller's environment).
if not os.environ.get("OCLGRIND_LOG") or os.environ.get("CLDNN_PY_TEST_OCLGRIND_LOG") == os.environ["OCLGRIND_LOG"]:
    os.environ["OCLGRIND_LOG"] = os.environ["CLDNN_PY_TEST_OCLGRIND_LOG"] = str(
        _root / f"oclgrind_{_worker}_{os.getpid()}.log")
os.environ.setdefault("OCLGRIND_DATA_RACES", "1")

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


def seed_for(nodeid: str) -> int:
    """The ``rng`` seed of a test: crc32 of its node id, xor'd with ``CLDNN_PY_TEST_SEED`` (an int, default 0)."""
    extra = int(os.environ.get("CLDNN_PY_TEST_SEED", "0") or 0)
    return (zlib.crc32(nodeid.encode()) ^ extra) & 0xFFFFFFFF


_USER_CL_OPTIONS = os.environ.get("CLDNN_PY_CL_OPTIONS")


def _engine_of(item) -> str | None:
    callspec = getattr(item, "callspec", None)
    params = callspec.params if callspec else {}
    return params.get("engine") or params.get("kind")


def _thin_ocl(config, items) -> None:
    """``@pytest.mark.ocl_every(n)``: of a test function's OpenCL parametrizations (engine or kind ``ocl``, or every
    case of a test without an engine parameter), keep the 1st, (n+1)-th, ... and every case that brings a parameter
    value that repeats among them and that no kept case has (each mode, dtype, format ... still runs on OpenCL; not
    a parameter naming one case each), and deselect the others; the CPU engine's cases all run. Why: on PoCL each
    case is a program build of its own, about 0.3 s of fixed cost (PoCL parses clang's opencl-c.h twice per build),
    and the suite has thousands; the variants of one family (another mode, another shape) exercise one kernel's
    source under other jit constants. ``CLDNN_PY_TEST_OCL_EVERY=1`` (a nightly run) keeps them all."""
    if os.environ.get("CLDNN_PY_TEST_OCL_EVERY", "") == "1":
        return

    def thinned(item) -> bool:
        return item.get_closest_marker("ocl_every") is not None and _engine_of(item) in ("ocl", None)

    def values(item) -> set[tuple[str, str]]:
        callspec = getattr(item, "callspec", None)
        return {(k, repr(v)) for k, v in (callspec.params.items() if callspec else ())}

    # the parameters to cover: those whose values repeat among a function's OpenCL cases (a mode, a dtype), not one
    # that names each case (a list of cases)
    count: dict[str, int] = {}
    distinct: dict[str, dict[str, set[str]]] = {}
    for item in filter(thinned, items):
        fn = item.nodeid.split("[")[0]
        count[fn] = count.get(fn, 0) + 1
        for k, v in values(item):
            distinct.setdefault(fn, {}).setdefault(k, set()).add(v)
    seen: dict[str, int] = {}
    covered: dict[str, set[tuple[str, str]]] = {}
    keep, drop = [], []
    for item in items:
        if not thinned(item):
            keep.append(item)
            continue
        mark = item.get_closest_marker("ocl_every")
        fn = item.nodeid.split("[")[0]
        seen[fn] = seen.get(fn, 0) + 1
        own = {(k, v) for k, v in values(item) if len(distinct[fn][k]) < count[fn]}
        new = own - covered.setdefault(fn, set())
        if (seen[fn] - 1) % int(mark.args[0]) == 0 or new:
            covered[fn] |= own
            keep.append(item)
        else:
            drop.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_collection_modifyitems(config, items):
    """``@pytest.mark.ocl_every(n)`` thins OpenCL cases (:func:`_thin_ocl`). ``CLDNN_PY_TEST_FAST_CASES=N``
    (``make test-fast``): keep the first N parametrizations of every test function per engine and deselect the rest,
    so every test function still runs (a smoke run in minutes); 0 or unset keeps everything (``make test``)."""
    _thin_ocl(config, items)
    try:
        n = int(os.environ.get("CLDNN_PY_TEST_FAST_CASES", "0") or 0)
    except ValueError:
        raise pytest.UsageError("CLDNN_PY_TEST_FAST_CASES must be an integer") from None
    if n <= 0:
        return
    seen: dict[tuple[str, object], int] = {}
    keep, drop = [], []
    for item in items:
        key = (item.nodeid.split("[")[0], _engine_of(item))
        seen[key] = seen.get(key, 0) + 1
        (keep if seen[key] <= n else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(autouse=True)
def _cl_build_options(request, monkeypatch):
    """``-cl-opt-disable`` for the builds of tests not marked ``network`` (see the module docstring)."""
    marker = request.node.get_closest_marker
    optimized = (marker("network") is not None and marker("unoptimized_build") is None) or \
        marker("ray") is not None or os.environ.get("CLDNN_PY_TEST_CL_OPT", "0") not in ("", "0")
    if _USER_CL_OPTIONS is None and not optimized:
        monkeypatch.setenv("CLDNN_PY_CL_OPTIONS", "-cl-opt-disable")


@pytest.fixture
def rng(request):
    """A random generator per test, seeded from the test's node id (and ``CLDNN_PY_TEST_SEED``, see the module
    docstring): re-running a failing test id gives the same data. The seed is printed so a failure shows it."""
    seed = seed_for(request.node.nodeid)
    print(f"rng seed for {request.node.nodeid}: {seed} (CLDNN_PY_TEST_SEED={os.environ.get('CLDNN_PY_TEST_SEED', '')})")
    return np.random.default_rng(seed)


@pytest.fixture(scope="session")
def generated_dir():
    """The git-ignored folder for generated models and weights."""
    GENERATED.mkdir(exist_ok=True)
    return GENERATED
