"""ArgMin (ArgMax in min mode) and Hardmax (ArgMax → equal against an index range → float) vs onnxruntime:
ties (first / last index), keepdims=0, negative axes, Hardmax's version-13 axis and the coerced-2D semantics of
versions 1 and 11, rank 5."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import cldnn_py as cl
from cldnn_py.errors import ShapeError
from tests.onnx.ort_compare import build, compare, declare, randf32


def _ties(rng, *shape):
    """Few distinct values, so that most rows have tied minima and maxima."""
    return rng.integers(-2, 3, shape).astype(np.float32)


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("select_last_index", [0, 1])
@pytest.mark.parametrize("shape,axis,keepdims", [((3, 4, 5), 1, 1), ((3, 4, 5), -1, 0), ((6,), 0, 0),
                                                 ((2, 3, 4, 5), 0, 1), ((2, 2, 3, 2, 3), 3, 0)])
def test_argmin(engine, rng, shape, axis, keepdims, select_last_index):
    x = _ties(rng, *shape)
    m = build([helper.make_node("ArgMin", ["x"], ["y"], axis=axis, keepdims=keepdims,
                                select_last_index=select_last_index)], {"x": x}, {}, ["y"], 13,
              out_types={"y": TensorProto.INT64})
    compare(engine, m, {"x": x}, atol=0)


def test_argmin_default_axis_opset11(engine, rng):
    x = randf32(rng, 4, 3)
    m = build([helper.make_node("ArgMin", ["x"], ["y"])], {"x": x}, {}, ["y"], 11, out_types={"y": TensorProto.INT64})
    compare(engine, m, {"x": x}, atol=0)


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("opset,shape,axis", [(13, (3, 4, 5), None), (13, (3, 4, 5), 0), (13, (3, 4, 5), -2),
                                              (13, (2, 2, 3, 2, 3), 2), (11, (3, 4, 5), None), (11, (3, 4, 5), 0),
                                              (11, (3, 4, 5), -1), (11, (2, 3, 4), 2), (1, (2, 3, 4), 1),
                                              (13, (7,), 0)])
def test_hardmax(engine, rng, opset, shape, axis, ties):
    x = _ties(rng, *shape) if ties else randf32(rng, *shape)
    m = build([helper.make_node("Hardmax", ["x"], ["y"], **({} if axis is None else {"axis": axis}))], {"x": x}, {},
              ["y"], opset)
    compare(engine, m, {"x": x}, atol=0)


def test_hardmax_axis_out_of_range():
    x = np.zeros((2, 3), np.float32)
    m = build([helper.make_node("Hardmax", ["x"], ["y"], axis=2, name="h")], {"x": x}, {}, ["y"], 13)
    with pytest.raises(ShapeError, match=r"Hardmax 'h'.*expected in \[-2, 1\], got 2"):
        cl.load_onnx(declare(m, [x]))
