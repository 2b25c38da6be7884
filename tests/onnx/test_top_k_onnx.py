"""ONNX TopK vs onnxruntime: values and int64 indices, largest and smallest, negative axis, ties; a K fed at run
time (a value input: one specialization per K, in one Network); K = 0 gives empty outputs."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as T
from onnx import helper

import cldnn_py as cl


def _model(shape, out_shape, axis, largest, k_shape=(1,)):
    g = helper.make_graph(
        [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=axis, largest=largest)], "g",
        [helper.make_tensor_value_info("x", T.FLOAT, shape), helper.make_tensor_value_info("k", T.INT64, k_shape)],
        [helper.make_tensor_value_info("v", T.FLOAT, out_shape),
         helper.make_tensor_value_info("i", T.INT64, out_shape)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)], ir_version=10)


@pytest.mark.parametrize("largest", [1, 0])
def test_top_k_runtime_k_vs_onnxruntime(engine, rng, largest):
    x = (rng.integers(-6, 7, (3, 9, 4)) * 0.25).astype(np.float32)     # ties are common
    m = _model([3, 9, 4], [3, "k", 4], -2, largest)
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    net = cl.Network(engine, cl.load_onnx(m))
    for k in (3, 9, 1, 3):
        feeds = {"x": x, "k": np.array([k], np.int64)}
        v_ref, i_ref = sess.run(None, feeds)
        out = net.run(feeds)
        assert out["i"].dtype == np.int64 and out["v"].shape == v_ref.shape == (3, k, 4)
        np.testing.assert_array_equal(out["v"], v_ref)
        np.testing.assert_array_equal(out["i"], i_ref)
    assert net.builds == 3   # K 3 seen twice: its specialization is reused


def test_top_k_zero_k_gives_empty_outputs(engine, rng):
    x = rng.standard_normal((2, 5)).astype(np.float32)
    m = _model([2, 5], [2, 0], 1, 1)
    out = cl.Network(engine, cl.load_onnx(m)).run({"x": x, "k": np.array([0], np.int64)})
    assert out["v"].shape == (2, 0) and out["i"].shape == (2, 0) and out["i"].dtype == np.int64


def test_top_k_k_beyond_axis_is_refused(engine, rng):
    x = rng.standard_normal((2, 5)).astype(np.float32)
    m = _model([2, 5], [2, "k"], 1, 1)
    with pytest.raises(cl.ShapeError, match="K: expected in \\[0, 5\\].*got 6"):
        cl.Network(engine, cl.load_onnx(m)).run({"x": x, "k": np.array([6], np.int64)})
