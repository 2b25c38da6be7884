"""Where and Mod vs onnxruntime (and numpy for Mod-28's float fmod=0): three-way broadcasting, an Inf and a NaN on
the unselected side, int64 beyond float32's exact integers, bool operands, a constant condition; remainders with
mixed signs, both fmod modes, integer division by zero does not trap."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as T
from onnx import helper, numpy_helper

import cldnn_py as cl

_ELEM = {np.dtype(np.float32): T.FLOAT, np.dtype(np.int64): T.INT64, np.dtype(np.bool_): T.BOOL,
         np.dtype(np.int32): T.INT32}


def _model(op, feeds, out_type, opset, inits=None, **attrs):
    names = list(feeds) + list(inits or {})
    shape = np.broadcast_shapes(*[a.shape for a in list(feeds.values()) + list((inits or {}).values())])
    g = helper.make_graph([helper.make_node(op, names, ["out"], **attrs)], "g",
                          [helper.make_tensor_value_info(n, _ELEM[a.dtype], a.shape) for n, a in feeds.items()],
                          [helper.make_tensor_value_info("out", out_type, shape)],
                          [numpy_helper.from_array(v, k) for k, v in (inits or {}).items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _run(engine, m, feeds):
    net = cl.Network(engine, cl.load_onnx(m))
    net.poison()
    return net.run(feeds)["out"]


def _ort(m, feeds):
    return ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)[0]


def test_where_float_broadcast_with_inf_and_nan_unselected(engine, rng):
    c = rng.integers(0, 2, (3, 1)).astype(bool)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    y = rng.standard_normal((4,)).astype(np.float32)
    x[:, ~c[:, 0], :] = np.inf      # never selected
    y[0] = np.nan                   # selected only where c is false
    m = _model("Where", {"c": c, "x": x, "y": y}, T.FLOAT, 16)
    got, ref = _run(engine, m, {"c": c, "x": x, "y": y}), _ort(m, {"c": c, "x": x, "y": y})
    assert got.shape == ref.shape == (2, 3, 4) and got.dtype == np.float32
    np.testing.assert_array_equal(got, ref)


def test_where_int64_exact_and_constant_condition(engine, rng):
    x = (2**24 + rng.integers(-5, 6, (2, 5))).astype(np.int64)
    y = (-(2**30) + rng.integers(-5, 6, (5,))).astype(np.int64)
    cond = rng.integers(0, 2, (2, 5)).astype(bool)
    m = _model("Where", {"x": x, "y": y}, T.INT64, 16, inits={"c": cond})
    m.graph.node[0].input[:] = ["c", "x", "y"]
    got, ref = _run(engine, m, {"x": x, "y": y}), _ort(m, {"x": x, "y": y})
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, ref)


def test_where_bool_operands(engine, rng):
    c = rng.integers(0, 2, (4, 3)).astype(bool)
    x = rng.integers(0, 2, (4, 3)).astype(bool)
    y = rng.integers(0, 2, (1, 3)).astype(bool)
    m = _model("Where", {"c": c, "x": x, "y": y}, T.BOOL, 16)
    got = _run(engine, m, {"c": c, "x": x, "y": y})
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, np.where(c, x, y))  # onnxruntime has no bool Where kernel


@pytest.mark.parametrize("fmod", [0, 1])
def test_mod_int64_mixed_signs(engine, rng, fmod):
    a = rng.integers(-10**9, 10**9, (3, 4)).astype(np.int64)
    b = (rng.integers(1, 1000, (4,)) * rng.choice([-1, 1], (4,))).astype(np.int64)
    m = _model("Mod", {"a": a, "b": b}, T.INT64, 13, fmod=fmod)
    got = _run(engine, m, {"a": a, "b": b})
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, _ort(m, {"a": a, "b": b}))


def test_mod_float_fmod1_vs_onnxruntime(engine, rng):
    a = (rng.standard_normal((2, 3, 4)) * 10).astype(np.float32)
    b = (rng.uniform(0.5, 3.0, (3, 1)) * rng.choice([-1.0, 1.0], (3, 1))).astype(np.float32)
    m = _model("Mod", {"a": a, "b": b}, T.FLOAT, 13, fmod=1)
    np.testing.assert_allclose(_run(engine, m, {"a": a, "b": b}), _ort(m, {"a": a, "b": b}), rtol=1e-6, atol=1e-6)


def test_mod28_float_fmod0_is_python_remainder(engine, rng):
    """Mod-28 defines float fmod=0 as Python's %: the divisor's sign, a signed zero, Inf/NaN special cases (numpy's
    np.mod follows the same rules)."""
    a = (rng.standard_normal(20) * 10).astype(np.float32)
    b = (rng.uniform(0.5, 3.0, 20) * rng.choice([-1.0, 1.0], 20)).astype(np.float32)
    a[:6] = [0.0, -0.0, np.inf, -3.0, 3.0, np.nan]
    b[:6] = [-2.0, 2.0, 2.0, np.inf, np.inf, 1.0]
    m = _model("Mod", {"a": a, "b": b}, T.FLOAT, 28, fmod=0)
    got = _run(engine, m, {"a": a, "b": b})
    with np.errstate(all="ignore"):
        ref = np.mod(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(np.signbit(got[:2]), np.signbit(ref[:2]))
