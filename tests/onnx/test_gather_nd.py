"""GatherElements and GatherND vs onnxruntime: run-time int64 indices with negative values, every axis, batch_dims,
slices and single elements, constant indices (offsets at import) and out-of-range constant indices refused."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as T
from onnx import helper, numpy_helper

import cldnn_py as cl


def _model(op, data, idx, out_shape, const_idx=False, **attrs):
    ins = [helper.make_tensor_value_info("data", T.FLOAT, data.shape)]
    inits = [numpy_helper.from_array(idx, "idx")] if const_idx else []
    if not const_idx:
        ins.append(helper.make_tensor_value_info("idx", T.INT64, idx.shape))
    g = helper.make_graph([helper.make_node(op, ["data", "idx"], ["out"], **attrs)], "g", ins,
                          [helper.make_tensor_value_info("out", T.FLOAT, out_shape)], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=10)


def _check(engine, m, feeds):
    ref = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    net = cl.Network(engine, cl.load_onnx(m))
    net.poison()
    got = net.run(feeds)["out"]
    assert got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("const_idx", [False, True])
def test_gather_elements(engine, rng, axis, const_idx):
    data = rng.standard_normal((3, 4, 5)).astype(np.float32)
    ishape = [3, 4, 5]
    ishape[axis] = 2
    n = data.shape[axis]
    idx = rng.integers(-n, n, ishape).astype(np.int64)
    m = _model("GatherElements", data, idx, ishape, const_idx, axis=axis)
    _check(engine, m, {"data": data} if const_idx else {"data": data, "idx": idx})


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("const_idx", [False, True])
@pytest.mark.parametrize("case", [
    # data shape, indices shape, batch_dims
    ((4, 5, 6), (3, 2), 0),        # slices of the last dimension
    ((4, 5, 6), (2, 2, 3), 0),     # single elements
    ((4, 5), (1,), 0),             # one slice: the indices' leading shape is empty
    ((2, 5, 6), (2, 3, 1), 1),     # batch_dims 1
    ((2, 3, 4, 5), (2, 3, 2), 2),  # batch_dims 2, single elements
], ids=str)
def test_gather_nd(engine, rng, case, const_idx):
    dshape, ishape, b = case
    data = rng.standard_normal(dshape).astype(np.float32)
    sizes = np.array(dshape[b:b + ishape[-1]])
    idx = (rng.integers(0, 1 << 30, ishape) % (2 * sizes) - sizes).astype(np.int64)   # in [-n, n)
    out_shape = list(ishape[:-1]) + list(dshape[b + ishape[-1]:])
    m = _model("GatherND", data, idx, out_shape, const_idx, batch_dims=b)
    _check(engine, m, {"data": data} if const_idx else {"data": data, "idx": idx})


def test_constant_indices_out_of_range_are_refused():
    data = np.zeros((3, 4), np.float32)
    idx = np.array([[0, 4]], np.int64)
    with pytest.raises(cl.ShapeError, match="GatherND.*expected in \\[-n, n\\)"):
        cl.load_onnx(_model("GatherND", data, idx, [1], True))
