"""DepthToSpace (DCR, CRD) and SpaceToDepth (DCR; CRD at opset 28) vs onnxruntime on random data, and the errors
for shapes the blocksize does not divide."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import cldnn_py as cl
from cldnn_py.errors import ShapeError
from tests.onnx.ort_compare import build, compare, declare, randf32


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("mode", ["DCR", "CRD"])
@pytest.mark.parametrize("opset", [11, 13])
@pytest.mark.parametrize("shape,b", [((2, 8, 3, 5), 2), ((1, 18, 2, 3), 3), ((1, 4, 1, 1), 2)])
def test_depth_to_space(engine, rng, mode, opset, shape, b):
    x = randf32(rng, *shape)
    m = build([helper.make_node("DepthToSpace", ["x"], ["y"], blocksize=b, mode=mode)], {"x": x}, {}, ["y"], opset)
    compare(engine, m, {"x": x}, atol=0)


@pytest.mark.parametrize("opset", [1, 13])
@pytest.mark.parametrize("shape,b", [((2, 3, 4, 6), 2), ((1, 2, 6, 3), 3), ((1, 5, 2, 2), 2)])
def test_space_to_depth(engine, rng, opset, shape, b):
    x = randf32(rng, *shape)
    m = build([helper.make_node("SpaceToDepth", ["x"], ["y"], blocksize=b)], {"x": x}, {}, ["y"], opset)
    compare(engine, m, {"x": x}, atol=0)


def test_depth_space_round_trip_int64(engine, rng):
    """Integers move unchanged: SpaceToDepth then DepthToSpace (both DCR) is the identity (checked against the
    input: onnxruntime has no integer SpaceToDepth)."""
    x = rng.integers(-100, 100, (1, 2, 4, 6)).astype(np.int64)
    m = build([helper.make_node("SpaceToDepth", ["x"], ["t"], blocksize=2),
               helper.make_node("DepthToSpace", ["t"], ["y"], blocksize=2)], {"x": x}, {}, ["y"], 13,
              out_types={"y": TensorProto.INT64})
    got = cl.Network(engine, cl.load_onnx(declare(m, [x]))).run({"x": x})["y"]
    np.testing.assert_array_equal(got, x)


@pytest.mark.parametrize("op,shape", [("DepthToSpace", (1, 6, 2, 2)), ("SpaceToDepth", (1, 2, 3, 4))])
def test_blocksize_must_divide(op, shape):
    x = np.zeros(shape, np.float32)
    m = build([helper.make_node(op, ["x"], ["y"], blocksize=2, name="n1")], {"x": x}, {}, ["y"], 13)
    with pytest.raises(ShapeError, match=f"{op} 'n1'.*got"):
        cl.load_onnx(declare(m, [x]))
