"""Every cldnn-py subcommand, exercised through main(argv) on a small generated model."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from cldnn_py.cli import main


@pytest.fixture
def model_path(tmp_path):
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["h"]), helper.make_node("Relu", ["h"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 5, 5])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3, 5, 5])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=10)
    path = tmp_path / "relu.onnx"
    onnx.save(m, path)
    return str(path)


def test_devices_lists_the_default_device_and_why(capsys):
    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    from cldnn_py.device import default_choice

    spec, _ = default_choice()
    assert out.startswith("cl:0:0") and "max alloc" in out and f"Engine() picks {spec}: " in out
    assert "local memory" in out and "work-group" in out  # the capabilities the kernels validate on
    assert "\ncpu  " in out and "numba" in out  # the CPU engine is listed too


def test_devices_probe_stores_the_load_form(tmp_path, capsys):
    cache = tmp_path / "t.json"
    assert main(["devices", "--probe", "--cache", str(cache)]) == 0
    out = capsys.readouterr().out
    assert "load-form probe: pointer" in out and "vload" in out and "device:load_form" in cache.read_text()


def test_version(capsys):
    assert main(["version"]) == 0
    assert "cldnn_py 0.1.0" in capsys.readouterr().out


def test_run_with_given_input_writes_outputs(model_path, tmp_path, capsys, rng):
    x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out.npz"
    assert main(["run", model_path, "--input", f"x={tmp_path / 'x.npy'}", "--output", str(out)]) == 0
    np.testing.assert_array_equal(np.load(out)["y"], np.maximum(x, 0))
    assert "not given" not in capsys.readouterr().out


def test_run_fills_missing_inputs_and_says_so(model_path, capsys):
    assert main(["run", model_path, "--shape", "x=1,3,5,5"]) == 0
    out = capsys.readouterr().out
    assert "input 'x': not given, filled with seeded random data (1, 3, 5, 5)" in out
    assert "output 'y': shape (1, 3, 5, 5)" in out


def test_run_dynamic_input_without_shape_fails_clearly(model_path, capsys):
    assert main(["run", model_path]) == 2
    assert "dimension 0 is dynamic" in capsys.readouterr().err


def test_benchmark_report_and_per_primitive_table(model_path, tmp_path, capsys):
    report = tmp_path / "r.json"
    assert main(["benchmark", model_path, "--batch", "2", "-n", "3", "--pc", "--check", "--report", str(report)]) == 0
    out = capsys.readouterr().out
    for needle in ("program build:", "latency over 3 runs", "p90", "throughput:", "share", "activation_",
                   "check vs onnxruntime: output 'y' relative error"):
        assert needle in out, needle
    r = json.loads(report.read_text())
    assert r["batch"] == 2 and r["iterations"] == 3 and len(r["per_primitive"]) == 3
    assert r["latency_ms"]["min"] <= r["latency_ms"]["median"] <= r["latency_ms"]["max"]


def test_benchmark_for_a_time(model_path, capsys):
    assert main(["benchmark", model_path, "--shape", "x=1x3x5x5", "-t", "0.2"]) == 0
    assert "latency over" in capsys.readouterr().out


@pytest.mark.parametrize("device", [None, "cpu"])
def test_benchmark_throughput_mode(model_path, tmp_path, capsys, device):
    report = tmp_path / "t.json"
    argv = ["benchmark", model_path, "--shape", "x=1,3,5,5", "--mode", "throughput", "--requests", "3", "-n", "7",
            "--report", str(report)] + (["--device", device] if device else [])
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "3 requests in flight: 7 inferences" in out and "images/s (batch 1)" in out and "latency over" not in out
    r = json.loads(report.read_text())
    assert r["mode"] == "throughput" and r["requests"] == 3 and r["completed"] == 7 and r["images_per_s"] > 0
    assert r["latency_ms"]["min"] <= r["latency_ms"]["median"] <= r["latency_ms"]["max"]
    with pytest.raises(SystemExit):
        main(["benchmark", model_path, "--mode", "throughput", "--requests", "0"])


def test_dump_graph(model_path, tmp_path):
    dot = tmp_path / "g.dot"
    assert main(["dump-graph", model_path, "--shape", "x=1,3,5,5", "-o", str(dot)]) == 0
    text = dot.read_text()
    # y (a Relu after the Relu h) runs fused into h's kernel: the graph shows x -> h
    assert text.startswith("digraph") and '"x" -> "h"' in text and "activation_" in text and "bfyx" in text


def test_unreadable_model_fails_clearly(tmp_path, capsys):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage")
    assert main(["run", str(bad)]) == 2
    assert "bad.onnx" in capsys.readouterr().err


def test_zoo_writes_a_model(tmp_path, capsys):
    assert main(["zoo", "--out", str(tmp_path), "--models", "squeezenet"]) == 0
    path = tmp_path / "squeezenet_b1_s0.onnx"
    assert path.exists() and str(path) in capsys.readouterr().out
    onnx.checker.check_model(onnx.load(path))


def test_tune_writes_winners_and_benchmark_reads_them(tmp_path, capsys, rng):
    w = helper.make_tensor("w", TensorProto.FLOAT, [16, 8, 3, 3], rng.standard_normal(16 * 8 * 9).tolist())
    g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])], "conv",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8, 6, 9])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 16, 6, 9])], [w])
    path = tmp_path / "conv.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=10), path)
    cache = tmp_path / "tuning.json"
    assert main(["tune", str(path), "--batch", "1", "2", "--cache", str(cache)]) == 0
    out = capsys.readouterr().out
    assert "batch 2: tuned" in out and "2 new" in out  # one convolution shape per batch
    entries = next(iter(json.loads(cache.read_text())["devices"].values()))
    assert {e["kernel"] for k, e in entries.items() if not k.startswith("device:")} == {"convolution_b_fs_yx_fsv16"}
    from cldnn_py import Engine
    from kernel_selector.tuning_cache import TuningCache

    probe = TuningCache(cache).lookup_device(Engine().info, "load_form")  # the user's file or the shipped one
    assert probe is not None and probe["load_form"] in ("pointer", "vload")
    assert main(["benchmark", str(path), "--batch", "2", "-n", "2", "--tuning-cache", str(cache)]) == 0
    assert main(["benchmark", str(path), "--batch", "1", "-n", "2", "--tuning", "off"]) == 0


def test_cache_info_and_clear(model_path, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CLDNN_PY_BINARY_CACHE", "1")  # store binaries even on PoCL (kernel_cache docstring)
    d = tmp_path / "kc"
    assert main(["cache", "info", "--dir", str(d)]) == 0
    assert ": 0 entries" in capsys.readouterr().out
    from cldnn_py import Engine
    from cldnn_py.frontend import load_onnx
    from cldnn_py.program import BuildOptions, Program

    p = Program(Engine(cache_dir=str(d)), load_onnx(model_path, {"x": (1, 3, 5, 5)}), BuildOptions())
    assert p.binary_cache_hits == 0 and p.kernels_built >= 1
    assert main(["cache", "info", "--dir", str(d)]) == 0
    n = int(capsys.readouterr().out.split(": ")[1].split(" entries")[0])
    assert n >= 1
    again = Program(Engine(cache_dir=str(d)), load_onnx(model_path, {"x": (1, 3, 5, 5)}), BuildOptions())
    assert again.binary_cache_hits == n  # every program of the second build came from the cache
    assert main(["cache", "clear", "--dir", str(d)]) == 0
    assert f"{n} entries deleted" in capsys.readouterr().out
