"""Partitioning (issue 21): ``load_onnx(model, fallback="onnxruntime")`` runs the nodes the engine supports and
hands the rest to onnxruntime; every case is compared with onnxruntime on the whole model (rel <= 1e-4) on fresh
random data, with the engine stages' buffers poisoned. The unsupported operators are ones the engine lacks (Celu,
Shrink, Trilu, ThresholdedRelu); ``unsupported_reason`` is checked first so a test fails loudly if the
engine gains one of them (pick another then)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import cldnn_py as cl
from cldnn_py.errors import UnsupportedError
from cldnn_py.frontend.onnx import unsupported_reason
from cldnn_py.partitioned_network import EngineStage, HostStage, PartitionedNetwork, PartitionedTopology
from tests.onnx.ort_compare import declare

OPSET = 17
LACKING = ("Celu", "Shrink", "Trilu", "ThresholdedRelu")


def _model(nodes, inputs: dict, outputs: list[str], inits: dict | None = None, out_types: dict | None = None):
    ins = [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs.items()]
    outs = [helper.make_tensor_value_info(o, (out_types or {}).get(o, TensorProto.FLOAT), None) for o in outputs]
    g = helper.make_graph(nodes, "g", ins, outs, [numpy_helper.from_array(v, k) for k, v in (inits or {}).items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=10)


def _ort(model, feeds):
    import onnxruntime as ort

    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)


def _check(engine, model, feeds, n_host: int, n_engine: int) -> PartitionedNetwork:
    refs = _ort(model, feeds)
    model = declare(model, refs)
    topo = cl.load_onnx(model, fallback="onnxruntime")
    assert isinstance(topo, PartitionedTopology)
    kinds = [type(s) for s in topo.stages]
    assert kinds.count(HostStage) == n_host and kinds.count(EngineStage) == n_engine, topo.describe()
    net = cl.Network(engine, topo)
    assert isinstance(net, PartitionedNetwork)
    net.poison()
    got = net.run(feeds)
    for out, ref in zip(model.graph.output, refs):
        g = got[out.name]
        assert g.shape == ref.shape and g.dtype == ref.dtype, (out.name, g.shape, g.dtype, ref.shape, ref.dtype)
        scale = max(1.0, float(np.abs(ref).max())) if ref.size else 1.0
        np.testing.assert_allclose(g.astype(np.float64), ref.astype(np.float64), rtol=0, atol=1e-4 * scale)
    return net


def test_the_test_operators_are_unsupported():
    for op in LACKING:
        node = helper.make_node(op, ["x"], ["y"], name="n")
        assert unsupported_reason(node, OPSET) is not None, f"the engine supports {op} now: pick another"


def test_one_unsupported_node_in_the_middle(engine, rng):
    w = rng.standard_normal((6, 4)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["a"]), helper.make_node("Celu", ["a"], ["b"], alpha=0.7),
             helper.make_node("Relu", ["b"], ["c"]), helper.make_node("Add", ["c", "x2"], ["y"])]
    m = _model(nodes, {"x": [3, 6], "x2": [3, 4]}, ["y"], {"w": w})
    feeds = {"x": rng.standard_normal((3, 6)).astype(np.float32), "x2": rng.standard_normal((3, 4)).astype(np.float32)}
    net = _check(engine, m, feeds, n_host=1, n_engine=2)
    prof = {e.id: e for e in net.get_profiling_info()}
    host = [e for e in prof.values() if e.type == "onnxruntime"]
    assert len(host) == 1 and "Celu" in host[0].kernel and host[0].time_us > 0


def test_adjacent_unsupported_nodes_make_one_host_stage(engine, rng):
    nodes = [helper.make_node("Sigmoid", ["x"], ["a"]), helper.make_node("Celu", ["a"], ["b"]),
             helper.make_node("Shrink", ["b"], ["c"], lambd=0.3, bias=0.1), helper.make_node("Exp", ["c"], ["y"])]
    m = _model(nodes, {"x": [2, 3, 5]}, ["y"])
    _check(engine, m, {"x": rng.standard_normal((2, 3, 5)).astype(np.float32)}, n_host=1, n_engine=2)


def test_interleaved_unsupported_nodes(engine, rng):
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Celu", ["a"], ["b"]),
             helper.make_node("Tanh", ["b"], ["c"]), helper.make_node("Shrink", ["c"], ["d"], lambd=0.2),
             helper.make_node("Mul", ["d", "x"], ["y"])]
    m = _model(nodes, {"x": [4, 7]}, ["y"])
    _check(engine, m, {"x": rng.standard_normal((4, 7)).astype(np.float32)}, n_host=2, n_engine=3)


def test_a_tensor_read_on_both_sides(engine, rng):
    """``a`` feeds the host stage and a later engine stage; ``y1`` (an engine output) and ``y2`` are both outputs."""
    nodes = [helper.make_node("Abs", ["x"], ["a"]), helper.make_node("Trilu", ["a"], ["t"], upper=1),
             helper.make_node("Add", ["a", "t"], ["y1"]), helper.make_node("Neg", ["t"], ["y2"])]
    m = _model(nodes, {"x": [5, 5]}, ["y1", "y2"])
    _check(engine, m, {"x": rng.standard_normal((5, 5)).astype(np.float32)}, n_host=1, n_engine=2)


def test_fallback_at_the_input_and_at_the_output(engine, rng):
    nodes = [helper.make_node("ThresholdedRelu", ["x"], ["a"], alpha=0.1), helper.make_node("Sqrt", ["a"], ["b"]),
             helper.make_node("Celu", ["b"], ["y"], alpha=2.0)]
    m = _model(nodes, {"x": [2, 8]}, ["y"])
    _check(engine, m, {"x": rng.standard_normal((2, 8)).astype(np.float32)}, n_host=2, n_engine=1)


def test_parallel_branches_make_no_cycle(engine, rng):
    """x -> Relu -> Celu -> Add <- Sigmoid <- x: the engine nodes before the host stage run together, the Add after
    it in a stage of its own (merging it with them would make a cycle)."""
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Sigmoid", ["x"], ["s"]),
             helper.make_node("Celu", ["a"], ["b"]), helper.make_node("Add", ["b", "s"], ["y"])]
    m = _model(nodes, {"x": [3, 4, 5]}, ["y"])
    net = _check(engine, m, {"x": rng.standard_normal((3, 4, 5)).astype(np.float32)}, n_host=1, n_engine=2)
    first = net.stages[0]
    assert isinstance(first, EngineStage) and len(first.ops) == 2


def test_a_data_dependent_shape_through_onnxruntime(engine, rng):
    """NonZero (output shape known only at run time) and the Cast after it on the host (numpy), Celu of that in
    onnxruntime, then an engine stage that is dynamic."""
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("NonZero", ["a"], ["nz"]),
             helper.make_node("Cast", ["nz"], ["f"], to=TensorProto.FLOAT),
             helper.make_node("Celu", ["f"], ["g"]), helper.make_node("Exp", ["g"], ["h"]),
             helper.make_node("Mul", ["h", "two"], ["y"])]
    m = _model(nodes, {"x": [3, 4]}, ["y"], {"two": np.array(0.5, np.float32)})
    net = _check(engine, m, {"x": rng.standard_normal((3, 4)).astype(np.float32)}, n_host=2, n_engine=2)
    assert [getattr(s, "runner", "engine") for s in net.stages] == ["engine", "host", "onnxruntime", "engine"]


def test_constants_are_copied_into_each_stage(engine, rng):
    """An initializer read by both an engine and a host stage, through a constant chain (Neg of it folds)."""
    c = rng.standard_normal((4,)).astype(np.float32)
    nodes = [helper.make_node("Neg", ["c"], ["nc"]), helper.make_node("Add", ["x", "nc"], ["a"]),
             helper.make_node("Celu", ["a"], ["b"]), helper.make_node("Mul", ["b", "nc"], ["y"])]
    m = _model(nodes, {"x": [2, 4]}, ["y"], {"c": c})
    _check(engine, m, {"x": rng.standard_normal((2, 4)).astype(np.float32)}, n_host=1, n_engine=2)


def test_a_model_the_engine_runs_whole_is_not_partitioned(engine, rng):
    m = declare(_model([helper.make_node("Relu", ["x"], ["y"])], {"x": [2, 3]}, ["y"]), [np.zeros((2, 3))])
    topo = cl.load_onnx(m, fallback="onnxruntime")
    assert not isinstance(topo, PartitionedTopology)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_array_equal(cl.Network(engine, topo).run({"x": x})["y"], np.maximum(x, 0))


def test_a_node_a_converter_refuses_falls_back(engine, rng):
    """A supported op type with an attribute its converter refuses (an Einsum diagonal): the conversion-time
    UnsupportedError moves the node to the host."""
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Einsum", ["a"], ["y"], equation="ii->i")]
    m = _model(nodes, {"x": [4, 4]}, ["y"])
    try:
        cl.load_onnx(declare(m, [np.zeros(4)]))
        pytest.skip("the engine converts this node now; nothing to fall back")
    except UnsupportedError:
        pass
    _check(engine, m, {"x": rng.standard_normal((4, 4)).astype(np.float32)}, n_host=1, n_engine=1)


def test_without_fallback_unsupported_nodes_stay_an_error():
    m = declare(_model([helper.make_node("Celu", ["x"], ["y"])], {"x": [2]}, ["y"]), [np.zeros(2)])
    with pytest.raises(UnsupportedError, match="Celu"):
        cl.load_onnx(m)
    with pytest.raises(ValueError, match="fallback: expected 'none' or 'onnxruntime', got 'ort'"):
        cl.load_onnx(m, fallback="ort")


def test_describe_names_every_stage():
    m = _model([helper.make_node("Relu", ["x"], ["a"], name="r"), helper.make_node("Celu", ["a"], ["y"], name="c")],
               {"x": [2]}, ["y"])
    m = declare(m, [np.zeros(2)])
    text = cl.load_onnx(m, fallback="onnxruntime").describe()
    assert "stage0_engine [engine] 1 node(s): Relu 'r'" in text
    assert "stage1_onnxruntime [onnxruntime] 1 node(s): Celu 'c'" in text
    onnx.checker.check_model(m)


def test_inference_session_call_shapes(engine, rng):
    """The onnxruntime API: get_inputs/get_outputs (names, shapes with symbolic dims as str, types), run(None, feeds)
    and run(names, feeds) in the asked order, an unknown output named in the error; with a fallback node inside."""
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Celu", ["a"], ["y1"]),
             helper.make_node("ArgMax", ["x"], ["y2"], axis=1, keepdims=0)]
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 6])]
    outs = [helper.make_tensor_value_info("y1", TensorProto.FLOAT, ["batch", 6]),
            helper.make_tensor_value_info("y2", TensorProto.INT64, ["batch"])]
    m = helper.make_model(helper.make_graph(nodes, "g", ins, outs), opset_imports=[helper.make_opsetid("", OPSET)],
                          ir_version=10)
    sess = cl.InferenceSession(m.SerializeToString(), device=engine, fallback="onnxruntime")
    assert [(i.name, i.shape, i.type) for i in sess.get_inputs()] == [("x", ["batch", 6], "tensor(float)")]
    assert [(o.name, o.shape, o.type) for o in sess.get_outputs()] == [("y1", ["batch", 6], "tensor(float)"),
                                                                        ("y2", ["batch"], "tensor(int64)")]
    assert sess.get_providers() == ["CldnnPyExecutionProvider", "CPUExecutionProvider"]
    for batch in (3, 5):
        x = rng.standard_normal((batch, 6)).astype(np.float32)
        ref1, ref2 = _ort(m, {"x": x})
        y1, y2 = sess.run(None, {"x": x})
        np.testing.assert_allclose(y1, ref1, rtol=1e-5, atol=1e-6)
        assert y2.dtype == np.int64 and (y2 == ref2).all()
        b2, b1 = sess.run(["y2", "y1"], {"x": x})
        assert (b2 == ref2).all() and np.allclose(b1, ref1, atol=1e-6)
    with pytest.raises(cl.TopologyError, match=r"output\(s\) \['z'\] are not outputs of the model"):
        sess.run(["z"], {"x": x})


def test_cli_run_and_dump_graph_with_fallback(tmp_path, capsys, rng):
    """``cldnn-py run --fallback onnxruntime`` runs a model with a node the engine lacks (its output equals
    onnxruntime's); ``dump-graph --fallback onnxruntime`` prints the stages and writes the stage DOT."""
    from cldnn_py.cli import main

    nodes = [helper.make_node("Relu", ["x"], ["a"], name="r"), helper.make_node("Celu", ["a"], ["y"], name="c")]
    m = declare(_model(nodes, {"x": [2, 5]}, ["y"]), [np.zeros((2, 5))])
    path, x = tmp_path / "m.onnx", rng.standard_normal((2, 5)).astype(np.float32)
    onnx.save(m, path)
    np.save(tmp_path / "x.npy", x)
    assert main(["run", str(path), "--device", "cpu", "--input", f"x={tmp_path / 'x.npy'}", "--output",
                 str(tmp_path / "o.npz")]) == 2  # refused without fallback
    assert "Celu" in capsys.readouterr().err
    assert main(["run", str(path), "--device", "cpu", "--fallback", "onnxruntime", "--input",
                 f"x={tmp_path / 'x.npy'}", "--output", str(tmp_path / "o.npz")]) == 0
    np.testing.assert_allclose(np.load(tmp_path / "o.npz")["y"], _ort(m, {"x": x})[0], rtol=1e-5, atol=1e-6)
    dot = tmp_path / "g.dot"
    assert main(["dump-graph", str(path), "--device", "cpu", "--fallback", "onnxruntime", "-o", str(dot)]) == 0
    text = dot.read_text()
    assert '"stage0_engine" -> "stage1_onnxruntime" [label="a"]' in text and "fillcolor=lightgrey" in text
    assert (tmp_path / "g.stage0_engine.dot").exists()
    assert "stage1_onnxruntime [onnxruntime] 1 node(s): Celu 'c'" in capsys.readouterr().out
