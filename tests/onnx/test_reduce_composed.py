"""ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum and ReduceLogSumExp (composed of Reduce and activations) vs
onnxruntime: axes as attribute (opset 13) and as constant input (opset 18), negative axes, keepdims=0, every axis,
noop_with_empty_axes, rank 5, and large inputs for the max-subtracted LogSumExp."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import cldnn_py as cl
from cldnn_py.errors import UnsupportedError
from tests.onnx.ort_compare import build, compare, declare, randf32

OPS = ["ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"]
CASES = [((2, 3, 4), [1], 1), ((2, 3, 4), [-1, 0], 0), ((2, 3, 4), None, 1), ((2, 3, 4), None, 0),
         ((3, 5), [-2], 0), ((2, 3, 2, 2, 3), [1, 3], 1), ((2, 3, 2, 2, 3), [-1, 2], 0), ((4,), [0], 0)]


def _data(rng, op, shape):
    x = randf32(rng, *shape)
    return np.abs(x) + 0.1 if op == "ReduceLogSum" else x  # log of a positive sum


def _model(op, x, axes, keepdims, opset, **extra):
    if opset >= 18 or (op == "ReduceSum" and opset >= 13):
        ins, inits = (["x", "axes"] if axes is not None else ["x"]), ({"axes": np.array(axes, np.int64)}
                                                                      if axes is not None else {})
        node = helper.make_node(op, ins, ["y"], keepdims=keepdims, **extra)
    else:
        inits = {}
        node = helper.make_node(op, ["x"], ["y"], keepdims=keepdims,
                                **({"axes": axes} if axes is not None else {}), **extra)
    return build([node], {"x": x}, inits, ["y"], opset)


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("opset", [13, 18])
@pytest.mark.parametrize("shape,axes,keepdims", CASES)
@pytest.mark.parametrize("op", OPS)
def test_reduce_composed(engine, rng, op, opset, shape, axes, keepdims):
    x = _data(rng, op, shape)
    compare(engine, _model(op, x, axes, keepdims, opset), {"x": x}, atol=1e-5)


@pytest.mark.parametrize("op", OPS)
def test_noop_with_empty_axes(engine, rng, op):
    """No axes with noop_with_empty_axes=1: only the element-wise maps (onnxruntime and the ONNX reference)."""
    x = _data(rng, op, (2, 3))
    compare(engine, _model(op, x, None, 1, 18, noop_with_empty_axes=1), {"x": x})


@pytest.mark.parametrize("shape,axes", [((2, 5, 3), [1]), ((2, 2, 3, 2, 2), [0, 4])])
def test_log_sum_exp_large_values_do_not_overflow(engine, rng, shape, axes):
    """exp(200) overflows float32: only the max-subtracted form gives the finite result."""
    x = randf32(rng, *shape) + 200.0
    compare(engine, _model("ReduceLogSumExp", x, axes, 0, 18), {"x": x}, atol=1e-4)


def test_integer_input_is_refused():
    x = np.ones((2, 3), np.int64)
    m = build([helper.make_node("ReduceL1", ["x"], ["y"], keepdims=1, name="r1")], {"x": x}, {}, ["y"], 13,
              out_types={"y": 7})
    with pytest.raises(UnsupportedError, match="ReduceL1 'r1'.*i32.*only float32"):
        cl.load_onnx(declare(m, [np.ones((1, 1), np.int64)]))
