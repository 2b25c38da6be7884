"""benchmarks/gpu_bench.py's helpers without a GPU: the fp32 peak by device name, the NVIDIA ICD setup (nothing to
do where OCL_ICD_VENDORS is set or the library is absent; an .icd file where it is present), the table line."""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import types

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def gb():
    spec = importlib.util.spec_from_file_location("gpu_bench_script", ROOT / "benchmarks" / "gpu_bench.py")
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def test_peak_by_name(gb):
    assert gb.peak_for("NVIDIA H100 PCIe") == 51.2  # the longest match wins over "H100"
    assert gb.peak_for("NVIDIA H100 80GB HBM3") == 66.9
    assert gb.peak_for("pthread-AMD EPYC") is None


def test_icd_setup(gb, monkeypatch, tmp_path):
    monkeypatch.setenv("OCL_ICD_VENDORS", str(tmp_path))
    assert gb.setup_nvidia_icd() is None
    monkeypatch.delenv("OCL_ICD_VENDORS")
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: types.SimpleNamespace(stdout="libc.so.6 => /lib/libc"))
    assert gb.setup_nvidia_icd() is None
    monkeypatch.setattr(subprocess, "run",
                        lambda *a, **k: types.SimpleNamespace(stdout="libnvidia-opencl.so.1 (libc6,x86-64) => /x"))
    folder = gb.setup_nvidia_icd()
    assert folder == "/tmp/ocl" and (pathlib.Path(folder) / "nvidia.icd").read_text() == "libnvidia-opencl.so.1\n"
    import os

    assert os.environ["OCL_ICD_VENDORS"] == folder
    monkeypatch.delenv("OCL_ICD_VENDORS")


def test_row_format(gb):
    row = {"model": "resnet50", "batch": 8, "latency_ms": 10.0, "device_ms": 8.0, "gflop_per_s": 6544.0,
           "rel_err": 2e-6, "torch_ms": 5.0, "ort_cpu_ms": 300.0, "roofline": 0.12}
    line = gb.format_row(row)
    assert "resnet50" in line and "2.00x" in line and "12.0%" in line
