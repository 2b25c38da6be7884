"""Comparisons and logic (Equal, Less, Greater, LessOrEqual, GreaterOrEqual, Not, And, Or, Xor) and bool
ReduceMax/Min vs onnxruntime: float32 with ties and NaN, int64 beyond float32's exact integers, bool, broadcasting;
results come back as bool."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as T
from onnx import helper

import cldnn_py as cl


def _model(op, ins, opset, out_shape, **attrs):
    g = helper.make_graph([helper.make_node(op, [n for n, _, _ in ins], ["y"], **attrs)], "g",
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
                          [helper.make_tensor_value_info("y", T.BOOL, out_shape)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _check(engine, m, feeds):
    ref = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    net = cl.Network(engine, cl.load_onnx(m))
    net.poison()
    got = net.run(feeds)["y"]
    assert got.dtype == np.bool_ and got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("op,opset", [("Equal", 13), ("Less", 13), ("Greater", 9), ("LessOrEqual", 16),
                                      ("GreaterOrEqual", 12)])
def test_compare_float_with_ties_and_nan(engine, rng, op, opset):
    a = (rng.integers(-3, 4, (2, 3, 4)) * 0.5).astype(np.float32)
    b = (rng.integers(-3, 4, (3, 1)) * 0.5).astype(np.float32)
    a[0, 0, :2] = np.nan
    _check(engine, _model(op, [("a", T.FLOAT, a.shape), ("b", T.FLOAT, b.shape)], opset, [2, 3, 4]),
           {"a": a, "b": b})


@pytest.mark.parametrize("op", ["Equal", "Less", "GreaterOrEqual"])
def test_compare_int64_exact(engine, rng, op):
    """Values 2^24 + 1 apart from their neighbours' float32 roundings: an integer comparison, not a float one."""
    base = 2**24 + 1
    a = base + rng.integers(-1, 2, (4, 5)).astype(np.int64)
    b = base + rng.integers(-1, 2, (5,)).astype(np.int64)
    _check(engine, _model(op, [("a", T.INT64, a.shape), ("b", T.INT64, b.shape)], 16, [4, 5]), {"a": a, "b": b})


@pytest.mark.parametrize("op", ["And", "Or", "Xor", "Not", "Equal"])
def test_logic_on_bool(engine, rng, op):
    a = rng.integers(0, 2, (2, 3, 4)).astype(bool)
    b = rng.integers(0, 2, (3, 1)).astype(bool)
    if op == "Not":
        _check(engine, _model(op, [("a", T.BOOL, a.shape)], 13, [2, 3, 4]), {"a": a})
    else:
        _check(engine, _model(op, [("a", T.BOOL, a.shape), ("b", T.BOOL, b.shape)], 13, [2, 3, 4]),
               {"a": a, "b": b})


@pytest.mark.parametrize("op", ["ReduceMax", "ReduceMin"])
def test_reduce_bool(engine, rng, op):
    """numpy's any/all as the reference (onnxruntime has no bool ReduceMax/Min kernel)."""
    a = rng.integers(0, 2, (3, 5)).astype(bool)
    a[0] = True
    a[1] = False
    m = _model(op, [("a", T.BOOL, a.shape)], 13, [3, 1], axes=[1])
    got = cl.Network(engine, cl.load_onnx(m)).run({"a": a})["y"]
    ref = a.any(axis=1, keepdims=True) if op == "ReduceMax" else a.all(axis=1, keepdims=True)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, ref)
