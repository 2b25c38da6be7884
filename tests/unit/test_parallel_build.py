"""Which drivers build programs in parallel threads (cldnn_py/device.py parallel_build_allowed, OclEngine.build_threads,
CLDNN_PY_PARALLEL_BUILD): PoCL's CPU device yes, Oclgrind and unknown drivers no (a parallel clBuildProgram crashes
Oclgrind), the knob overrides. Pure functions of names: no device needed."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from cldnn_py import env
from cldnn_py.device import parallel_build_allowed
from cldnn_py.ocl_engine import OclEngine

POCL = "Portable Computing Language"


@pytest.mark.parametrize("platform,device,knob,expected", [
    (POCL, "pthread-AMD EPYC", "auto", True),
    (POCL, "cpu-haswell-Intel(R) Core(TM) i7", "auto", True),     # the same driver, named cpu since PoCL 4
    (POCL, "pthread", "auto", True),
    (POCL, "NVIDIA GeForce RTX 3090", "auto", False),             # PoCL's CUDA driver: not known to be safe
    ("Oclgrind", "Oclgrind Simulator", "auto", False),
    ("NVIDIA CUDA", "NVIDIA H100 80GB HBM3", "auto", False),       # unknown: one thread
    ("Intel(R) OpenCL Graphics", "Intel(R) UHD Graphics 770", "", False),
    ("NVIDIA CUDA", "NVIDIA H100 80GB HBM3", "1", True),           # the knob wins both ways
    ("Oclgrind", "Oclgrind Simulator", "on", True),
    (POCL, "pthread-AMD EPYC", "0", False),
    (POCL, "pthread-AMD EPYC", "off", False),
    (POCL, "pthread-AMD EPYC", "nonsense", True),                  # anything else is auto
])
def test_parallel_build_allowed(platform, device, knob, expected):
    assert parallel_build_allowed(platform, device, knob) is expected


def fake_engine(platform: str, device: str):
    return SimpleNamespace(device=SimpleNamespace(platform=SimpleNamespace(name=platform), name=device))


def test_build_threads_follow_the_driver_and_the_knob(monkeypatch):
    threads = OclEngine.build_threads.fget  # type: ignore[attr-defined]
    cores = max(1, os.cpu_count() or 1)
    monkeypatch.delenv("CLDNN_PY_PARALLEL_BUILD", raising=False)
    assert env.parallel_build() == "auto"
    assert threads(fake_engine(POCL, "pthread-AMD EPYC")) == cores
    assert threads(fake_engine("Oclgrind", "Oclgrind Simulator")) == 1
    assert threads(fake_engine("NVIDIA CUDA", "NVIDIA H100 80GB HBM3")) == 1
    monkeypatch.setenv("CLDNN_PY_PARALLEL_BUILD", " 0 ")
    assert env.parallel_build() == "0" and threads(fake_engine(POCL, "pthread-AMD EPYC")) == 1
    monkeypatch.setenv("CLDNN_PY_PARALLEL_BUILD", "1")
    assert threads(fake_engine("NVIDIA CUDA", "NVIDIA H100 80GB HBM3")) == cores


@pytest.mark.parametrize("platform,expected", [
    (POCL, 256),  # a build cache of its own, ~45 ms per program even on a hit: a network's kernels in one program
    ("Oclgrind", 16),
    ("NVIDIA CUDA", 16),
])
def test_kernels_per_program_follow_the_driver(platform, expected):
    per_program = OclEngine.kernels_per_program.fget  # type: ignore[attr-defined]
    assert per_program(SimpleNamespace(info=SimpleNamespace(platform=platform))) == expected
