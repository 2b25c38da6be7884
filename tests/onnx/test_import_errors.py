"""load_onnx: clear errors for bad files and unsupported operators, constant folding, input shapes."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import cldnn_py as cl


def _model(nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _relu_model():
    return _model([helper.make_node("Relu", ["x"], ["y"])],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 4, 4])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3, 4, 4])])


def test_every_unsupported_node_is_listed_at_once():
    m = _model([helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Det", ["a"], ["b"], name="hm"),
                helper.make_node("LpNormalization", ["b"], ["y"], name="lp")],
               [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])])
    with pytest.raises(cl.UnsupportedError) as info:
        cl.load_onnx(m)
    msg = str(info.value)
    assert "2 unsupported node(s)" in msg
    assert "Det (domain '', opset 13, node 'hm')" in msg and "LpNormalization" in msg and "node 'lp'" in msg
    assert "supported operators:" in msg and "Conv" in msg


def test_not_onnx_truncated_and_checker_failures_name_the_file(tmp_path):
    bad = tmp_path / "garbage.onnx"
    bad.write_bytes(b"\x08\x07garbage\xff\xff")
    with pytest.raises(cl.OnnxImportError, match="garbage.onnx"):
        cl.load_onnx(str(bad))
    good = _relu_model().SerializeToString()
    cut = tmp_path / "cut.onnx"
    cut.write_bytes(good[: len(good) // 2])
    with pytest.raises(cl.OnnxImportError, match="cut.onnx"):
        cl.load_onnx(str(cut))
    broken = _model([helper.make_node("Relu", ["nowhere"], ["y"])],
                    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    path = tmp_path / "broken.onnx"
    onnx.save(broken, path)
    with pytest.raises(cl.OnnxImportError, match="broken.onnx.*checker"):
        cl.load_onnx(str(path))
    with pytest.raises(cl.OnnxImportError, match="missing.onnx"):
        cl.load_onnx(str(tmp_path / "missing.onnx"))


def test_dynamic_dimension_gives_a_dynamic_topology_a_program_refuses():
    topo = cl.load_onnx(_relu_model())
    assert topo.is_dynamic and topo.input_signature["x"].dims[0] == "N"
    with pytest.raises(cl.TopologyError, match="dynamic input dimensions"):
        cl.Program(cl.Engine("cpu"), topo)
    assert not cl.load_onnx(_relu_model(), {"x": (2, 3, 4, 4)}).is_dynamic
    with pytest.raises(cl.ShapeError, match="not inputs of the model"):
        cl.load_onnx(_relu_model(), {"nope": (1, 3, 4, 4)})


def test_shape_chain_and_generated_weights_fold_away(engine, rng):
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape and ConstantOfShape weights leave no kernel behind."""
    w_shape = numpy_helper.from_array(np.array([3], dtype=np.int64), "w_shape")
    idx = numpy_helper.from_array(np.array(0, dtype=np.int64), "idx")
    minus1 = numpy_helper.from_array(np.array([-1], dtype=np.int64), "minus1")
    axes = numpy_helper.from_array(np.array([0], dtype=np.int64), "axes")
    nodes = [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Gather", ["s", "idx"], ["n"]),
             helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
             helper.make_node("Concat", ["n1", "minus1"], ["target"], axis=0),
             helper.make_node("Reshape", ["x", "target"], ["flat"]),
             helper.make_node("ConstantOfShape", ["w_shape"], ["w"],
                              value=numpy_helper.from_array(np.array([0.5], np.float32))),
             helper.make_node("Mul", ["flat", "w"], ["y"])]
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 1, 1])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], [w_shape, idx, minus1, axes])
    topo = cl.load_onnx(m)
    kinds = sorted(p.type_name for p in topo if p.type_name != "data")
    assert kinds == ["eltwise", "input_layout", "reshape"]
    x = rng.standard_normal((2, 3, 1, 1)).astype(np.float32)
    np.testing.assert_allclose(cl.Network(engine, topo).run({"x": x})["y"], x.reshape(2, 3) * 0.5, rtol=1e-6)


def test_input_shapes_and_bytes_input(engine, rng):
    topo = cl.load_onnx(_relu_model().SerializeToString(), input_shapes={"x": (5, 3, 4, 4)})
    x = rng.standard_normal((5, 3, 4, 4)).astype(np.float32)
    np.testing.assert_array_equal(cl.Network(engine, topo).run({"x": x})["y"], np.maximum(x, 0))
