"""ConvInteger, MatMulInteger, QLinearConv and QLinearMatMul on the integer path (one QuantizedConvolution each,
int32 sums), on both engines, on fresh random data: against the ONNX definition in int64 (full-range values) and
against onnxruntime, whose int32 outputs must be equal and requantized ones on the same step for almost every
element, never more than one step off (the scale x_s·w_s/y_s may differ from onnxruntime's in its last bit, which
moves a value within one float ulp of a half step).

onnxruntime's u8 × s8 kernels on an AVX2 machine without VNNI (this one) sum pairs of products with
``vpmaddubsw``, which saturates at int16: with full-range int8 weights its results are not the ONNX definition
(measured: 45 of 72 MatMulInteger outputs off by up to 27 000). Its quantization tools avoid it with 7-bit weights
(``reduce_range``), so the comparisons with onnxruntime use int8 weights in [-64, 63]."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import cldnn_py as cl
from cldnn_py.frontend.onnx_ops import quantization_integer
from tests.onnx.nn_util import run_ort
from tests.references import quantized_conv_ref

_T = {np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.int8): TensorProto.INT8}


@pytest.fixture(autouse=True)
def integer_path(monkeypatch):
    """Every test here takes the integer path wherever it applies (the default takes it only where the float path
    is not provably exact: ``test_auto_takes_the_integer_path_only_where_float_could_round``)."""
    monkeypatch.setattr(quantization_integer, "INTEGER_PATH", "always")


def qrand(rng, dtype, shape, seven_bit=False):
    """Random values over the type's range (int8 weights in [-64, 63] with ``seven_bit``, see the docstring)."""
    info = np.iinfo(dtype)
    lo, hi = (-64, 63) if seven_bit and dtype == np.int8 else (info.min, info.max)
    return rng.integers(lo, hi + 1, shape).astype(dtype)


def one_node(op, x, inits, inputs, out_type, out_shape, opset=13, **attrs):
    """A model of one ``op`` node reading graph input "x" (``x``'s type and shape) and the initializers."""
    g = helper.make_graph([helper.make_node(op, inputs, ["y"], **attrs)], "q",
                          [helper.make_tensor_value_info("x", _T[x.dtype], list(x.shape))],
                          [helper.make_tensor_value_info("y", out_type, list(out_shape))],
                          [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    onnx.checker.check_model(m)
    return m


def ours(engine, m, x):
    topo = cl.load_onnx(m)
    kinds = {p.type_name for p in topo}
    net = cl.Network(engine, topo)
    net.poison()
    return net.run({"x": x})["y"], kinds


def assert_steps(y, ref):
    assert y.dtype == ref.dtype and y.shape == ref.shape
    d = np.abs(y.astype(np.int64) - ref.astype(np.int64))
    assert d.max() <= 1 and (d == 0).mean() >= 0.99, (d.max(), (d == 0).mean())


@pytest.mark.parametrize("xt, wt", [(np.uint8, np.int8), (np.uint8, np.uint8), (np.int8, np.int8)])
def test_conv_integer_is_exact(engine, rng, xt, wt):
    """K = 192·3·3 products of full-range values, per-channel weights zero points, an input zero point, padding,
    stride 2, groups 2: equal to the ONNX definition."""
    x = qrand(rng, xt, (1, 384, 7, 6))
    w = qrand(rng, wt, (8, 192, 3, 3))
    x_zp, w_zp = qrand(rng, xt, ()), qrand(rng, wt, (8,))
    m = one_node("ConvInteger", x, {"w": w, "x_zp": x_zp, "w_zp": w_zp}, ["x", "w", "x_zp", "w_zp"],
                 TensorProto.INT32, (1, 8, 4, 3), opset=10, pads=[1, 1, 1, 1], strides=[2, 2], group=2)
    y, kinds = ours(engine, m, x)
    assert "quantized_convolution" in kinds and "convolution" not in kinds
    ref = quantized_conv_ref(x, w, (2, 2), (1, 1), (1, 1), (1, 1), 2, int(x_zp), w_zp)
    np.testing.assert_array_equal(y, ref)


@pytest.mark.parametrize("wt", [np.int8, np.uint8])
def test_conv_integer_matches_onnxruntime(engine, rng, wt):
    """Per-tensor zero points (onnxruntime's ConvInteger takes no other), 7-bit int8 weights."""
    x = qrand(rng, np.uint8, (1, 64, 6, 6))
    w = qrand(rng, wt, (16, 64, 3, 3), seven_bit=True)
    inits = {"w": w, "x_zp": np.uint8(121), "w_zp": qrand(rng, wt, (), seven_bit=True)}
    m = one_node("ConvInteger", x, inits, ["x", "w", "x_zp", "w_zp"], TensorProto.INT32, (1, 16, 6, 6),
                 opset=10, pads=[1, 1, 1, 1])
    y, _ = ours(engine, m, x)
    np.testing.assert_array_equal(y, run_ort(m, {"x": x})[0])


@pytest.mark.parametrize("shape", [(6, 40), (2, 5, 40)])
def test_matmul_integer_is_exact(engine, rng, shape):
    """A of rank 2 and 3 with a scalar zero point, B (K, N) with per-column zero points: the ONNX definition on
    full-range values, and onnxruntime with 7-bit weights."""
    x = qrand(rng, np.uint8, shape)
    for seven_bit in (False, True):
        b = qrand(rng, np.int8, (40, 12), seven_bit)
        b_zp = qrand(rng, np.int8, (12,), seven_bit)
        inits = {"b": b, "a_zp": np.array(117, np.uint8), "b_zp": b_zp}
        m = one_node("MatMulInteger", x, inits, ["x", "b", "a_zp", "b_zp"], TensorProto.INT32,
                     shape[:-1] + (12,), opset=10)
        y, kinds = ours(engine, m, x)
        assert "quantized_convolution" in kinds
        spec = (x.astype(np.int64) - 117) @ (b.astype(np.int64) - b_zp.astype(np.int64))
        np.testing.assert_array_equal(y, spec)
        if seven_bit:
            np.testing.assert_array_equal(y, run_ort(m, {"x": x})[0])


@pytest.mark.parametrize("yt", [np.uint8, np.int8])
@pytest.mark.parametrize("per_channel", [False, True])
def test_qlinear_conv_requantizes_as_onnxruntime(engine, rng, yt, per_channel):
    """uint8 or int8 throughout (the combinations onnxruntime implements), int32 bias, per-tensor or per-channel
    weight scales."""
    x = qrand(rng, yt, (1, 16, 9, 9))
    w = qrand(rng, np.int8, (24, 16, 3, 3), seven_bit=True)
    w_scale = rng.uniform(0.002, 0.01, 24 if per_channel else ()).astype(np.float32)
    inits = {"x_s": np.float32(0.02), "x_zp": np.array(120 if yt == np.uint8 else -5, yt), "w": w, "w_s": w_scale,
             "w_zp": np.zeros(24 if per_channel else (), np.int8), "y_s": np.float32(0.09),
             "y_zp": np.array(110 if yt == np.uint8 else -7, yt), "b": rng.integers(-3000, 3000, 24).astype(np.int32)}
    m = one_node("QLinearConv", x, inits, ["x", "x_s", "x_zp", "w", "w_s", "w_zp", "y_s", "y_zp", "b"],
                 _T[np.dtype(yt)], (1, 24, 9, 9), opset=10, pads=[1, 1, 1, 1])
    y, kinds = ours(engine, m, x)
    assert "quantized_convolution" in kinds and "convolution" not in kinds
    ref = run_ort(m, {"x": x})[0]
    assert len(np.unique(ref)) > 50
    assert_steps(y, ref)


def test_qlinear_matmul_requantizes_as_onnxruntime(engine, rng):
    x = qrand(rng, np.uint8, (3, 7, 32))
    inits = {"a_s": np.float32(0.05), "a_zp": np.uint8(128), "b": qrand(rng, np.int8, (32, 20), seven_bit=True),
             "b_s": np.float32(0.01), "b_zp": np.int8(0), "y_s": np.float32(0.15), "y_zp": np.uint8(128)}
    m = one_node("QLinearMatMul", x, inits, ["x", "a_s", "a_zp", "b", "b_s", "b_zp", "y_s", "y_zp"],
                 TensorProto.UINT8, (3, 7, 20))
    y, kinds = ours(engine, m, x)
    assert "quantized_convolution" in kinds
    ref = run_ort(m, {"x": x})[0]
    assert len(np.unique(ref)) > 50
    assert_steps(y, ref)


def test_run_time_weights_take_the_float_path(engine, rng):
    """ConvInteger whose weights are a graph input is not covered by the integer path: the float path runs it (exact
    here: small sums)."""
    x = qrand(rng, np.uint8, (1, 3, 5, 5))
    w = qrand(rng, np.int8, (2, 3, 3, 3))
    g = helper.make_graph([helper.make_node("ConvInteger", ["x", "w"], ["y"])], "q",
                          [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 3, 5, 5]),
                           helper.make_tensor_value_info("w", TensorProto.INT8, [2, 3, 3, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.INT32, [1, 2, 3, 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 10)], ir_version=10)
    topo = cl.load_onnx(m)
    net = cl.Network(engine, topo)
    y = net.run({"x": x, "w": w})["y"]
    np.testing.assert_array_equal(y, run_ort(m, {"x": x, "w": w})[0])


def test_auto_takes_the_integer_path_only_where_float_could_round(engine, rng, monkeypatch):
    """The default: a layer whose float sums cannot reach 2^24 (here K = 8·3·3 full-range products, at most
    72·128·255 < 2^24) imports as a float convolution, one that could (K = 256·3·3) as a QuantizedConvolution;
    both equal to the ONNX definition."""
    monkeypatch.setattr(quantization_integer, "INTEGER_PATH", "auto")
    for c, integer in ((8, False), (256, True)):
        x = qrand(rng, np.uint8, (1, c, 5, 5))
        w = qrand(rng, np.int8, (4, c, 3, 3))
        m = one_node("ConvInteger", x, {"w": w, "x_zp": np.uint8(128)}, ["x", "w", "x_zp"], TensorProto.INT32,
                     (1, 4, 5, 5), opset=10, pads=[1, 1, 1, 1])
        assert quantization_integer.float_sums_exact(w.reshape(4, -1), np.dtype(np.uint8), 128) is not integer
        y, kinds = ours(engine, m, x)
        assert ("quantized_convolution" in kinds) is integer and ("convolution" in kinds) is not integer
        np.testing.assert_array_equal(y, quantized_conv_ref(x, w, (1, 1), (1, 1), (1, 1), (1, 1), 1, 128))


def test_float_sums_exact_bound():
    """The bound is max_oc Σ|w − w_zp| · max|x − x_zp|: at 2^24 and above the float path is not taken."""
    w = np.full((2, 1), 1, np.int64)
    w[1, 0] = (2 ** 24) // 255 + 1
    assert not quantization_integer.float_sums_exact(w, np.dtype(np.uint8), 0)
    assert quantization_integer.float_sums_exact(w[:1], np.dtype(np.uint8), 0)
    w = np.array([[(2 ** 24 - 1) // 128]])
    assert quantization_integer.float_sums_exact(w, np.dtype(np.uint8), 128)  # |x - 128| <= 128
    assert not quantization_integer.float_sums_exact(w, np.dtype(np.uint8), None)  # a run-time zero point: 255
