"""Bad input, memory bombs: a model that asks for terabytes (ConstantOfShape, Tile, Expand or Range folded at import,
a huge initializer, a huge declared input or activation) is refused before anything is allocated, naming the node or
tensor and the size in bytes; the limit is CLDNN_PY_MAX_TENSOR_BYTES. Part of the bad-input catalogue
(tests/*/test_bad_input_*.py)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import cldnn_py as cl

BIG = [2**20, 2**20]  # 2^40 elements: 4 TiB of float32


def _model(nodes, inits, x_shape=(1, 1)):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], list(inits))
    g.output[0].type.tensor_type.shape.dim.add().dim_param = "n"
    g.output[0].type.tensor_type.shape.dim.add().dim_param = "m"
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=10)


def _i64(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


def _bomb(kind):
    one = numpy_helper.from_array(np.ones((1, 1), np.float32), "one")
    if kind == "ConstantOfShape":
        return _model([helper.make_node("ConstantOfShape", ["big"], ["c"], name="bomb"),
                       helper.make_node("Add", ["x", "c"], ["y"])], [_i64("big", BIG)]), "c"
    if kind in ("Tile", "Expand"):
        return _model([helper.make_node(kind, ["one", "big"], ["c"], name="bomb"),
                       helper.make_node("Add", ["x", "c"], ["y"])], [_i64("big", BIG), one]), "c"
    if kind == "Range":  # inputs from Constant nodes: ONNX shape inference would compute its values otherwise
        consts = [helper.make_node("Constant", [], [n], value=numpy_helper.from_array(np.array(v, np.int64)))
                  for n, v in (("s", 0), ("l", 2**40), ("d", 1))]
        return _model(consts + [helper.make_node("Range", ["s", "l", "d"], ["c"], name="bomb"),
                                helper.make_node("Cast", ["c"], ["cf"], to=TensorProto.FLOAT),
                                helper.make_node("Add", ["x", "cf"], ["y"])], [], x_shape=(1,)), "c"
    raise ValueError(kind)


@pytest.mark.parametrize("kind", ["ConstantOfShape", "Tile", "Expand", "Range"])
def test_folding_bombs_are_refused_before_allocation(kind):
    model, out = _bomb(kind)
    with pytest.raises(cl.OnnxImportError, match=rf"{kind} 'bomb' \(constant folding, output '{out}'\): shape "
                                                  rf"\(\d+(, \d+)?,?\) is \d+ bytes, more than the limit"):
        cl.load_onnx(model)


def test_tile_of_an_activation_is_refused_naming_the_primitive():
    model = _model([helper.make_node("Tile", ["x", "big"], ["y"], name="t")], [_i64("big", BIG)])
    with pytest.raises(cl.OnnxImportError, match=rf"tile 'y': shape \(1048576, 1048576\) is {2**42} bytes"):
        cl.load_onnx(model)


def test_huge_declared_input_and_initializers_are_refused(tmp_path):
    with pytest.raises(cl.OnnxImportError, match=rf"input_layout 'x': shape \(1048576, 1048576\) is {2**42} bytes"):
        cl.load_onnx(_model([helper.make_node("Relu", ["x"], ["y"])], [], x_shape=BIG))
    w = numpy_helper.from_array(np.zeros(4, np.float32), "w")
    w.dims[:] = BIG  # declares 4 TiB, holds 16 bytes: the ONNX checker refuses it
    with pytest.raises(cl.OnnxImportError, match=r"\(tensor name: w\) raw_data size"):
        cl.load_onnx(_model([helper.make_node("Add", ["x", "w"], ["y"])], [w]))
    (tmp_path / "w.bin").write_bytes(b"\0" * 16)  # the same 4 TiB declared, its data in an external file
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    w.external_data.add(key="location", value="w.bin")
    path = tmp_path / "m.onnx"
    path.write_bytes(_model([helper.make_node("Add", ["x", "w"], ["y"])], [w]).SerializeToString())
    with pytest.raises(cl.OnnxImportError, match=rf"tensor 'w' \(external data 'w.bin'\): shape \(1048576, 1048576\) "
                                                 rf"is {2**42} bytes"):
        cl.load_onnx(str(path))


def test_the_limit_is_configurable(monkeypatch, rng):
    model = _model([helper.make_node("Add", ["x", "w"], ["y"])],
                   [numpy_helper.from_array(rng.standard_normal((64, 64)).astype(np.float32), "w")])
    assert cl.load_onnx(model) is not None
    monkeypatch.setenv("CLDNN_PY_MAX_TENSOR_BYTES", "1024")
    with pytest.raises(cl.OnnxImportError, match=r"initializer 'w': shape \(64, 64\) is 16384 bytes, more than the "
                                                 r"limit of 1024 bytes"):
        cl.load_onnx(model)
