"""The warm-start cache (cldnn_py/warm_start.py): a model's second compile loads its saved Program (no import, no
pass), gives the same outputs bit for bit, and any change to what decides the build (model bytes, input shapes,
options, device) misses; a bad entry is rebuilt; the folder is bounded; ``cldnn-py compile`` writes a program file
that ``run`` and ``benchmark`` take in place of the model."""

from __future__ import annotations

import logging

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import cldnn_py as cl
from cldnn_py.cli import main
from cldnn_py.dynamic_network import DynamicNetwork
from cldnn_py.warm_start import WarmStartCache, wait_for_stores


def conv_model(rng: np.random.Generator, n: int = 1) -> onnx.ModelProto:
    """Conv(3->8, 3x3) + Relu + GlobalAveragePool + Flatten + Gemm(8->5) + Softmax, seeded weights, input x (n, 3, 9,
    9) with a dynamic batch ("N") when ``n`` is None."""
    w = rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.3
    fw = rng.standard_normal((5, 8)).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["r"]),
         helper.make_node("GlobalAveragePool", ["r"], ["p"]), helper.make_node("Flatten", ["p"], ["f"]),
         helper.make_node("Gemm", ["f", "fw"], ["logits"], transB=1),
         helper.make_node("Softmax", ["logits"], ["prob"], axis=1)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n if n else "N", 3, 9, 9])],
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [n if n else "N", 5])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(fw, "fw")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A private cache folder of the test's own, with the warm start on (tests/conftest.py turns it off)."""
    d = tmp_path / "cache"
    monkeypatch.setenv("CLDNN_PY_CACHE_DIR", str(d))
    monkeypatch.setenv("CLDNN_PY_WARM_START", "1")
    return d


def _entries(cache_dir) -> list:
    wait_for_stores()  # entries are written on a background thread
    return sorted((cache_dir / "programs").glob("*.cldnn"))


def _engine(kind: str, cache_dir):
    return cl.Engine("cpu") if kind == "cpu" else cl.Engine(cache_dir=str(cache_dir))


def test_second_compile_loads_the_saved_program(engine, cache_dir, tmp_path, rng):
    kind = engine.kind
    path = tmp_path / "m.onnx"
    onnx.save(conv_model(rng), path)
    first = cl.compile_model(str(path), _engine(kind, cache_dir))
    assert first.program.source == "" and len(_entries(cache_dir)) == 1
    second = cl.compile_model(str(path), _engine(kind, cache_dir))
    assert second.program.source == str(_entries(cache_dir)[0]) and second.program.pass_timings_ms == {}
    x = rng.standard_normal((1, 3, 9, 9)).astype(np.float32)
    first.poison()
    second.poison()
    a, b = first.run({"x": x}), second.run({"x": x})
    assert np.isfinite(b["prob"]).all()
    np.testing.assert_array_equal(b["prob"], a["prob"])
    if kind == "ocl" and second.engine.build_threads > 1:  # the entry's build hint started the driver's build
        assert second.program.hint_batches == len(second.program.cl_programs) >= 1
    if kind == "ocl" and second.engine.info.host_unified_memory:  # the constants are the entry's mapped pages
        import pyopencl

        flags = [m.buffer.get_info(pyopencl.mem_info.FLAGS) for m in second.program.constants.values()]
        assert all(f & pyopencl.mem_flags.USE_HOST_PTR for f in flags), flags
    # an InferenceSession takes the same path
    sess = cl.InferenceSession(str(path), device=_engine(kind, cache_dir))
    assert sess.network.program.source == second.program.source
    assert [i.name for i in sess.get_inputs()] == ["x"] and [o.name for o in sess.get_outputs()] == ["prob"]
    np.testing.assert_array_equal(sess.run(None, {"x": x})[0], a["prob"])


def test_what_decides_the_build_is_in_the_key(ocl_engine, cache_dir, tmp_path, rng):
    model = conv_model(rng, n=0)  # dynamic batch: fixed by input_shapes
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    eng = cl.Engine(cache_dir=str(cache_dir))
    cl.compile_model(str(path), eng, input_shapes={"x": (1, 3, 9, 9)})
    assert cl.compile_model(str(path), eng, input_shapes={"x": (1, 3, 9, 9)}).program.source  # a hit
    n2 = cl.compile_model(str(path), eng, input_shapes={"x": (2, 3, 9, 9)})  # another shape: a miss
    assert n2.program.source == "" and n2.get_output_layout("x").shape == (2, 3, 9, 9)
    h = cl.compile_model(str(path), eng, input_shapes={"x": (1, 3, 9, 9)},
                         options=cl.BuildOptions(inference_precision="f16"))
    assert h.program.source == "" and h.program.options.inference_precision == "f16"
    assert len(_entries(cache_dir)) == 3
    # the same file rewritten with other weights (same size): the stored digest is not trusted, the key changes
    onnx.save(conv_model(np.random.default_rng(1), n=0), path)
    assert cl.compile_model(str(path), eng, input_shapes={"x": (1, 3, 9, 9)}).program.source == ""
    # bytes of the model give the same key as its file
    again = cl.compile_model(path.read_bytes(), eng, input_shapes={"x": (1, 3, 9, 9)})
    assert again.program.source != ""
    # a dynamic model without shapes is not cached: a DynamicNetwork
    dyn = cl.compile_model(str(path), eng)
    assert isinstance(dyn, DynamicNetwork)
    assert len(_entries(cache_dir)) == 4
    # the warm start off: nothing stored, nothing loaded
    off = cl.compile_model(str(path), eng, input_shapes={"x": (1, 3, 9, 9)}, warm_start=False)
    assert off.program.source == "" and len(_entries(cache_dir)) == 4


def test_a_bad_entry_is_rebuilt(ocl_engine, cache_dir, tmp_path, rng, caplog):
    model = conv_model(rng).SerializeToString()
    eng = cl.Engine(cache_dir=str(cache_dir))
    cl.compile_model(model, eng)
    entry = _entries(cache_dir)[0]
    entry.write_bytes(entry.read_bytes()[: entry.stat().st_size // 2])  # truncated
    with caplog.at_level(logging.WARNING, logger="cldnn_py.warm_start"):
        net = cl.compile_model(model, eng)
    assert net.program.source == "" and "refused" in caplog.text and "rebuilding" in caplog.text
    assert cl.compile_model(model, eng).program.source == str(entry)  # stored again, whole


def test_the_folder_is_bounded(ocl_engine, cache_dir, monkeypatch, rng):
    monkeypatch.setenv("CLDNN_PY_WARM_START_MAX_MB", "0.001")  # 1 KiB: only the newest entry stays
    eng = cl.Engine(cache_dir=str(cache_dir))
    for seed in range(3):
        cl.compile_model(conv_model(np.random.default_rng(seed)), eng)
    assert len(_entries(cache_dir)) == 1
    info = WarmStartCache.for_engine(eng).info()
    assert info["entries"] == 1 and info["bytes"] > 0
    assert WarmStartCache.for_engine(eng).clear() == 1 and _entries(cache_dir) == []


def test_cli_compile_then_run_and_benchmark_the_file(ocl_engine, tmp_path, rng, capsys):
    path = tmp_path / "m.onnx"
    onnx.save(conv_model(rng), path)
    out = tmp_path / "m.cldnn"
    assert main(["compile", str(path), "-o", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    x = rng.standard_normal((1, 3, 9, 9)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    assert main(["run", str(out), "--input", f"x={tmp_path / 'x.npy'}", "--output", str(tmp_path / "o.npz")]) == 0
    got = np.load(tmp_path / "o.npz")["prob"]
    want = cl.Network(cl.Engine(), cl.load_onnx(str(path))).run({"x": x})["prob"]
    np.testing.assert_array_equal(got, want)
    assert main(["benchmark", str(out), "-n", "2"]) == 0
    assert "latency over 2 runs" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="compiled program"):
        main(["benchmark", str(out), "-n", "1", "--batch", "2"])


def test_dynamic_model_specializations_are_warm_started(engine, cache_dir, tmp_path, rng):
    path = tmp_path / "dyn.onnx"
    onnx.save(conv_model(rng, n=0), path)
    x = rng.standard_normal((2, 3, 9, 9)).astype(np.float32)
    first = cl.compile_model(str(path), _engine(engine.kind, cache_dir))
    assert isinstance(first, DynamicNetwork)
    a = first.run({"x": x})
    assert first.loaded == 0 and len(_entries(cache_dir)) == 1
    second = cl.compile_model(str(path), _engine(engine.kind, cache_dir))
    b = second.run({"x": x})
    assert second.loaded == 1
    np.testing.assert_array_equal(b["prob"], a["prob"])
    second.run({"x": x[:1]})  # another batch: built and stored
    assert second.loaded == 1 and len(_entries(cache_dir)) == 2


def test_inference_session_of_a_dynamic_model_warm_starts_its_specializations(engine, cache_dir, tmp_path, rng):
    path = tmp_path / "dyn.onnx"
    onnx.save(conv_model(rng, n=0), path)
    x = rng.standard_normal((3, 3, 9, 9)).astype(np.float32)
    first = cl.InferenceSession(str(path), device=_engine(engine.kind, cache_dir))
    (a,) = first.run(None, {"x": x})
    assert first.network.loaded == 0 and len(_entries(cache_dir)) == 1
    second = cl.InferenceSession(str(path), device=_engine(engine.kind, cache_dir))
    assert [i.shape for i in second.get_inputs()] == [["N", 3, 9, 9]]
    (b,) = second.run(["prob"], {"x": x})
    assert second.network.loaded == 1
    np.testing.assert_array_equal(b, a)
