"""Program.save / Program.load (cldnn_py/program_io.py): a loaded Program runs bit for bit as the one it was saved
from, on both engines, without running a pass; a truncated, tampered or foreign file is refused with a clear
ProgramFileError (tests/e2e/test_program_file_bad_input.py has the bad files)."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.program_io import StoredData


def small_topology(rng: np.random.Generator, c: int = 8) -> cl.Topology:
    """Convolutions with a residual sum and ReLUs (fused), a concat of two branches (in place), pooling, a fully
    connected layer and softmax: the passes' fusing, blocked layouts, packed weights, padding and memory pool."""
    def w(*shape):
        return rng.standard_normal(shape).astype(np.float32) * 0.3

    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 3, 12, 12))))
    topo.add(cl.Data("w1", w(c, 3, 3, 3)), cl.Data("b1", w(c)),
             cl.Convolution("c1", "x", weights="w1", bias="b1", pad=(1, 1)),
             cl.Activation("r1", "c1", "relu"),
             cl.Data("w2", w(c, c, 3, 3)), cl.Convolution("c2", "r1", weights="w2", pad=(1, 1)),
             cl.Eltwise("sum", ["c2", "r1"], mode="sum"), cl.Activation("r2", "sum", "relu"),
             cl.Data("w3", w(c, c, 1, 1)), cl.Convolution("c3", "r2", weights="w3"),
             cl.Concatenation("cat", ["r2", "c3"], axis=1),
             cl.Pooling("pool", "cat", mode="max", kernel=(2, 2), stride=(2, 2)),
             cl.Data("fw", w(10, 2 * c * 6 * 6)), cl.Data("fb", w(10)),
             cl.FullyConnected("fc", "pool", weights="fw", bias="fb"),
             cl.Softmax("prob", "fc", axis=1))
    return topo


def _run(net: cl.Network, x: np.ndarray) -> dict[str, np.ndarray]:
    net.poison()
    return net.run({"x": x})


def test_loaded_program_runs_bit_for_bit(engine, rng, tmp_path):
    topo = small_topology(rng)
    prog = cl.Program(engine, topo, cl.BuildOptions(outputs=["fc"]))
    path = tmp_path / "small.cldnn"
    size = prog.save(path)
    assert size == path.stat().st_size > 0
    loaded = cl.Program.load(engine, path)
    assert loaded.pass_timings_ms == {} and loaded.source == str(path)
    assert [n.id for n in loaded.order] == [n.id for n in prog.order]
    assert {n.id: n.impl.kernel_name for n in loaded.order if n.impl} == \
        {n.id: n.impl.kernel_name for n in prog.order if n.impl}
    assert {n.id: n.layout() for n in loaded.order} == {n.id: n.layout() for n in prog.order}
    a, b = cl.Network(prog), cl.Network(loaded)
    for _ in range(2):  # fresh data each time
        x = rng.standard_normal((1, 3, 12, 12)).astype(np.float32)
        want, got = _run(a, x), _run(b, x)
        assert set(got) == {"fc", "prob"}
        for k in want:
            assert np.isfinite(got[k]).all(), f"{k}: unwritten (poisoned) elements"
            np.testing.assert_array_equal(got[k], want[k])
    # the constants: a loaded Data primitive gives its logical array back from the device
    for n in prog.order:
        if n.kind == "data":
            stored = loaded.primitive(n.id)
            assert isinstance(stored, StoredData)
            np.testing.assert_array_equal(stored.array, n.primitive.array)
    assert b.memory_info() == a.memory_info()


def test_saved_f16_program_keeps_its_precision(ocl_engine, rng, tmp_path):
    prog = cl.Program(ocl_engine, small_topology(rng), cl.BuildOptions(inference_precision="f16"))
    prog.save(tmp_path / "h.cldnn")
    loaded = cl.Program.load(ocl_engine, tmp_path / "h.cldnn")
    halves = [n.id for n in loaded.order if n.layout().dtype == cl.DataType.f16]
    assert halves and halves == [n.id for n in prog.order if n.layout().dtype == cl.DataType.f16]
    assert loaded.options.inference_precision == "f16"
    x = rng.standard_normal((1, 3, 12, 12)).astype(np.float32)
    np.testing.assert_array_equal(_run(cl.Network(loaded), x)["prob"], _run(cl.Network(prog), x)["prob"])


def test_onnx_signatures_survive(engine, rng, tmp_path):
    """An ONNX model's declared int64 output and its input signature are kept: the loaded Network returns int64."""
    import onnx
    from onnx import TensorProto, helper

    w = rng.standard_normal((5, 4)).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"]), helper.make_node("ArgMax", ["y"], ["idx"], axis=1)],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 5])],
        [helper.make_tensor_value_info("idx", TensorProto.INT64, [3, 1]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])],
        [onnx.numpy_helper.from_array(w, "w")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    prog = cl.Program(engine, cl.load_onnx(model.SerializeToString()))
    prog.save(tmp_path / "m.cldnn")
    loaded = cl.Program.load(engine, tmp_path / "m.cldnn")
    x = rng.standard_normal((3, 5)).astype(np.float32)
    got = cl.Network(loaded).run({"x": x})
    assert got["idx"].dtype == np.int64
    np.testing.assert_array_equal(got["idx"][:, 0], (x.astype(np.float64) @ w).argmax(axis=1))
    np.testing.assert_allclose(got["y"], x.astype(np.float64) @ w, rtol=1e-5, atol=1e-5)


@pytest.mark.network
def test_zoo_network_round_trip(engine, rng, tmp_path):
    """SqueezeNet from the onnx wheel's zoo (seeded weights): saved, loaded, the same outputs bit for bit."""
    from cldnn_py.tools import zoo

    model = zoo.make_model("squeezenet", seed=int(rng.integers(2**31)), batch=1, check=False)
    prog = cl.Program(engine, cl.load_onnx(model))
    prog.save(tmp_path / "sq.cldnn")
    loaded = cl.Program.load(engine, tmp_path / "sq.cldnn")
    name = zoo.input_name("squeezenet")
    x = rng.standard_normal(zoo.input_shape("squeezenet", 1)).astype(np.float32)
    a = cl.Network(prog).run({name: x})
    b = cl.Network(loaded).run({name: x})
    assert a
    for k in a:
        np.testing.assert_array_equal(b[k], a[k])


def test_identical_layers_share_one_remade_kernel(engine, rng, tmp_path):
    """Convolutions of the same shape (different ids, different fused ReLU ids, different weights) get one
    KernelData at load on OpenCL (the memo of program_io._kernels), and the loaded Program still runs bit for bit."""
    def w(*shape):
        return rng.standard_normal(shape).astype(np.float32) * 0.3

    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 16, 10, 10))),
                       cl.Data("w1", w(16, 16, 3, 3)), cl.Convolution("c1", "x", weights="w1", pad=(1, 1)),
                       cl.Activation("r1", "c1", "relu"),
                       cl.Data("w2", w(16, 16, 3, 3)), cl.Convolution("c2", "r1", weights="w2", pad=(1, 1)),
                       cl.Activation("r2", "c2", "relu"),
                       cl.Data("w3", w(16, 16, 3, 3)), cl.Convolution("c3", "r2", weights="w3", pad=(1, 1)))
    prog = cl.Program(engine, topo)
    path = tmp_path / "p.cldnn"
    prog.save(path)
    loaded = cl.Program.load(engine, path)
    x = rng.standard_normal((1, 16, 10, 10)).astype(np.float32)
    np.testing.assert_array_equal(_run(cl.Network(loaded), x)["c3"], _run(cl.Network(prog), x)["c3"])
    by_source: dict[str, list] = {}  # OpenCL kernels: equal sources mean equal params (the CPU engine's have none)
    for n in loaded.order:
        if n.impl is not None and n.impl.kernels and getattr(n.impl.kernels[0], "source", None):
            by_source.setdefault(n.impl.kernels[0].source, []).append(n)
    if engine.kind != "ocl":
        return
    shared = [ns for ns in by_source.values() if len(ns) > 1]
    assert shared, "no two nodes with the same kernel: the test topology no longer has identical layers"
    for ns in shared:
        assert all(n.impl.kernels is ns[0].impl.kernels for n in ns[1:])


def test_an_output_fused_into_its_layer_survives(engine, rng, tmp_path):
    """A network output that a pass removed into another node (the bias Add after a MatMul, folded into the fully
    connected layer: CRNN's logits) is saved as a removed primitive; the loaded program resolves it and runs bit for
    bit (such a file was refused, "output 'output' is not a node", and the warm-start cache rebuilt it every time)."""
    from onnx import TensorProto, helper, numpy_helper

    w = rng.standard_normal((24, 10)).astype(np.float32)
    b = rng.standard_normal(10).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["mm"]), helper.make_node("Add", ["mm", "b"], ["output"])],
        "fused_output", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [20, 24])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [20, 10])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    prog = cl.Program(engine, cl.load_onnx(model))
    assert "output" not in prog.nodes and prog.resolve("output") in prog.nodes  # removed into its layer
    path = tmp_path / "fused.cldnn"
    prog.save(path)
    x = rng.standard_normal((20, 24)).astype(np.float32)
    a = cl.Network(prog)
    a.poison()
    want = a.run({"x": x})["output"]
    b_net = cl.Network(cl.Program.load(engine, path))
    b_net.poison()
    np.testing.assert_array_equal(b_net.run({"x": x})["output"], want)
    np.testing.assert_allclose(want, x.astype(np.float64) @ w + b, rtol=1e-5, atol=1e-5)
