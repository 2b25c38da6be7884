"""benchmarks/bench.py's pure helpers, without a device and without timing anything heavy: FLOP counting on a tiny
generated ONNX graph against a hand computation, targets and ratios, statistics, table and JSON formatting."""

from __future__ import annotations

import importlib.util
import json
import pathlib

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_script", ROOT / "benchmarks" / "bench.py")
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def _tiny_model() -> onnx.ModelProto:
    """x (2,3,9,9) -> Conv 3x3 stride 2 pad 1 (4 out) -> (2,4,5,5) -> grouped 1x1 Conv (group 2, 6 out)
    -> (2,6,5,5) -> Flatten (2,150) -> Gemm transB (10) -> (2,10) -> MatMul (10,7) -> (2,7).
    Weights are initializers; the intermediate shapes are left to shape inference."""
    rng = np.random.default_rng(0)

    def init(name, shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["c1", "w2"], ["c2"], group=2),
        helper.make_node("Relu", ["c2"], ["r"]),
        helper.make_node("Flatten", ["r"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "wg", "bg"], ["g"], transB=1),
        helper.make_node("MatMul", ["g", "wm"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 9, 9])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 7])],
        [init("w1", (4, 3, 3, 3)), init("b1", (4,)), init("w2", (6, 2, 1, 1)), init("wg", (10, 150)),
         init("bg", (10,)), init("wm", (10, 7))])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(m)
    return m


def test_count_flops_by_hand(bench):
    f = bench.count_flops(_tiny_model())
    conv1 = 2 * (2 * 4 * 5 * 5) * (3 * 3 * 3)  # out (2,4,5,5), each a 3x3x3 dot product
    conv2 = 2 * (2 * 6 * 5 * 5) * (4 // 2)  # group 2: each output channel sees 2 input channels
    gemm = 2 * (2 * 10) * 150
    matmul = 2 * (2 * 7) * 10
    assert f == {"Conv": conv1 + conv2, "Gemm": gemm, "MatMul": matmul, "total": conv1 + conv2 + gemm + matmul}


def test_count_flops_gemm_trans_a_and_unknown_shape(bench):
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [5, 3])  # transA: A^T is (3, 5), K = 5
    g = helper.make_graph([helper.make_node("Gemm", ["a", "b"], ["y"], transA=1)], "g", [a],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])],
                          [numpy_helper.from_array(np.ones((5, 4), np.float32), "b")])
    assert bench.count_flops(helper.make_model(g))["Gemm"] == 2 * 3 * 4 * 5
    dyn = helper.make_tensor_value_info("a", TensorProto.FLOAT, ["n", 5])
    g2 = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"])], "g", [dyn],
                           [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                           [numpy_helper.from_array(np.ones((5, 4), np.float32), "b")])
    with pytest.raises(ValueError, match="unknown"):
        bench.count_flops(helper.make_model(g2))


def test_targets_and_ratios(bench):
    assert bench.target_for("resnet50", 1) == ("latency", 1.0)
    assert bench.target_for("squeezenet", 1) == ("latency", 1.0)
    assert bench.target_for("resnet50", 8) == ("throughput", 1.0)
    ort = {"median_ms": 40.0, "images_per_s": 200.0}
    row = {"model": "resnet50", "batch": 1, "median_ms": 56.0, "images_per_s": 1e3 / 56}
    bench.compare(row, ort)
    assert row["ratio_kind"] == "latency" and row["ratio"] == pytest.approx(1.4) and row["target_met"] is False
    row = {"model": "alexnet", "batch": 8, "median_ms": 50.0, "images_per_s": 170.0}
    bench.compare(row, ort)
    assert row["ratio_kind"] == "throughput" and row["ratio"] == pytest.approx(0.85) and row["target_met"] is False
    row = {"model": "alexnet", "batch": 8, "median_ms": 40.0, "images_per_s": 210.0}
    bench.compare(row, ort)
    assert row["ratio"] == pytest.approx(1.05) and row["target_met"] is True
    assert bench.runs_for(1, None) == 10 and bench.runs_for(8, None) == bench.DEFAULT_RUNS_BATCHED
    assert bench.runs_for(8, 3) == 3


def test_models_include_real_shapes(bench):
    """--models takes the zoo's and the real-shapes models; "all" is both; the defaults stay the four zoo ones."""
    from cldnn_py.tools import real_shapes, zoo

    ap = bench.build_parser()
    choices = next(a for a in ap._actions if a.dest == "models").choices
    for name in ("mobilenet_v3", "yolo_neck", "dbnet_head", "crnn", "vit_tiny", *zoo.MODELS, "all"):
        assert name in choices
    assert ap.parse_args([]).models == ["resnet50", "alexnet", "googlenet", "squeezenet"]
    args = ap.parse_args(["--models", "yolo_neck", "all"])
    assert bench.parse_models(args.models) == ["yolo_neck", *zoo.MODELS, "mobilenet_v3", "dbnet_head",
                                                 "crnn", "vit_tiny"]
    assert bench.source_of("dbnet_head") is real_shapes and bench.source_of("vgg19") is zoo
    with pytest.raises(ValueError, match="unknown model"):
        bench.source_of("lenet")
    assert bench.target_for("mobilenet_v3", 1) == ("latency", 1.2)
    assert bench.target_for("yolo_neck", 8) == ("throughput", 1.0)


def test_summarize_interleaved_and_error(bench):
    s = bench.summarize([10.0, 30.0, 20.0, 12.0], batch=8, gflop_per_image=2.0)
    assert (s["runs"], s["median_ms"], s["min_ms"], s["max_ms"]) == (4, 16.0, 10.0, 30.0)
    assert s["images_per_s"] == pytest.approx(500.0) and s["gflop_per_s"] == pytest.approx(1000.0)
    calls: list[str] = []
    times = bench.interleaved([lambda: calls.append("a"), lambda: calls.append("b"), lambda: calls.append("c")], 3)
    assert "".join(calls) == "abcbcacab" and [len(t) for t in times] == [3, 3, 3]
    calls.clear()  # warm_each: an untimed call of the same runner right before each timed one
    times = bench.interleaved([lambda: calls.append("a"), lambda: calls.append("b")], 2, warm_each=True)
    assert "".join(calls) == "aabbbbaa" and [len(t) for t in times] == [2, 2]
    ref = {"p": np.array([1.0, -4.0]), "q": np.array([2.0])}
    assert bench.max_rel_error({"p": np.array([1.0, -3.0]), "q": np.array([2.0])}, ref) == pytest.approx(0.25)
    assert bench.max_rel_error({"p": np.array([1.0, -4.0])}, ref) == float("inf")


def _rows():
    base = {"model": "resnet50", "batch": 1, "gflop_per_image": 8.178, "median_ms": 43.2, "min_ms": 41.0,
            "max_ms": 50.5, "images_per_s": 1e3 / 43.2, "gflop_per_s": 8.178e3 / 43.2}
    ort = {**base, "engine": "onnxruntime", "device": "CPUExecutionProvider"}
    ours = {**base, "engine": "cldnn_py", "device": "cl:0:0", "median_ms": 60.0, "min_ms": 58.3, "max_ms": 70.0,
            "images_per_s": 1e3 / 60, "gflop_per_s": 8.178e3 / 60, "build_ms": 4321.0, "kernels": 37,
            "max_rel_error": 2.5e-6}
    ours_ok = {**ours, "model": "alexnet", "median_ms": 50.0}
    bench_rows = [ort, ours, ours_ok]
    failed = {**base, "engine": "cldnn_py", "device": "cl:1:0", "error": "KernelBuildError: boom"}
    return bench_rows, failed


def test_format_table(bench):
    rows, failed = _rows()
    bench.compare(rows[1], rows[0])
    bench.compare(rows[2], {**rows[0], "median_ms": 40.0})
    text = bench.format_table([*rows, failed])
    lines = text.splitlines()
    assert "latency ms median [min-max]" in lines[0] and "GFLOP/s" in lines[0] and set(lines[1]) == {"-"}
    assert lines[2].startswith("resnet50") and "onnxruntime" in lines[2] and "43.2 [41.0-50.5]" in lines[2]
    assert "8.18" in lines[2] and "23.1" in lines[2] and "189.3" in lines[2]  # img/s, GFLOP/s
    assert "cldnn_py cl:0:0" in lines[3] and "lat 1.39x (<=1.0x NOT MET)" in lines[3]
    assert "4321" in lines[3] and "37" in lines[3] and "2.5e-06" in lines[3]
    assert "lat 1.25x (<=1.0x NOT MET)" in lines[4]
    assert "FAILED: KernelBuildError: boom" in lines[5]


def test_format_json(bench):
    rows, failed = _rows()
    report = {"machine": {"cpu": "x", "load_average": [1.0]}, "settings": {"batches": (1, 8)},
              "results": [*rows, {**failed, "max_rel_error": float("inf"), "n": np.int64(3)}]}
    back = json.loads(bench.format_json(report))
    assert back["settings"]["batches"] == [1, 8] and back["machine"]["cpu"] == "x"
    assert back["results"][1]["kernels"] == 37 and back["results"][3]["max_rel_error"] is None
    assert back["results"][3]["n"] == 3
