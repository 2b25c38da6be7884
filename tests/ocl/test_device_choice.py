"""The default device is one that can build a kernel (cldnn_py.device.build_problem)."""

from __future__ import annotations

import os

import pytest

import cldnn_py as cl
from cldnn_py import device, env


def test_default_device_builds_a_kernel():
    specs = [d.spec for d in cl.list_devices()]
    if not specs:
        pytest.skip("no OpenCL platform")
    spec, why = device.default_choice()
    p, d = (int(x) for x in spec.split(":")[1:])
    working = [d for d in cl.list_devices()
               if device.build_problem(*(int(x) for x in d.spec.split(":")[1:])) is None]
    real = [d for d in working if "oclgrind" not in d.platform.lower()]
    preferred = [d.spec for d in real if d.caps.device_type == "gpu"] + \
        [d.spec for d in real if d.caps.device_type != "gpu"] + [d.spec for d in working if d not in real]
    if working:
        assert device.build_problem(p, d) is None and spec == preferred[0], (spec, preferred)
    assert "CLDNN_PY_DEVICE" in why or "PYOPENCL_CTX" in why or "GPUs first" in why


def test_build_problem_names_the_compiler_error(monkeypatch):
    device.build_problem.cache_clear()

    class FakeProgram:
        def __init__(self, ctx, src):
            assert "cldnn_py_probe" in src

        def build(self):
            raise cl_mod.RuntimeError("clBuildProgram failed: BUILD_PROGRAM_FAILURE\n\nerror: unknown target CPU "
                                      "'generic'\n(options: -I x)")

    import pyopencl as cl_mod

    if not cl.list_devices():
        pytest.skip("no OpenCL platform")
    monkeypatch.setattr(cl_mod, "Program", FakeProgram)
    try:
        assert device.build_problem(0, 0) == "error: unknown target CPU 'generic'"
    finally:
        device.build_problem.cache_clear()


def test_simulators_are_recognized_by_platform_name():
    from types import SimpleNamespace

    def dev(name):
        return SimpleNamespace(platform=SimpleNamespace(name=name))

    assert device.is_simulator(dev("Oclgrind")) and not device.is_simulator(dev("Portable Computing Language"))


def test_build_threads(engine):
    threads = engine.build_threads
    if engine.kind == "cpu":
        assert threads == 1  # the base: nothing to build
    else:
        allowed = device.parallel_build_allowed(engine.device.platform.name, engine.device.name, env.parallel_build())
        assert threads == (max(1, os.cpu_count() or 1) if allowed else 1)
        assert threads == 1 or not device.is_simulator(engine.device)
