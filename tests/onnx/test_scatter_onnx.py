"""ScatterElements and ScatterND vs onnxruntime: run-time int64 indices (negative ones too), constant indices, every
reduction of opset 18, slices and single elements, every axis."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as T
from onnx import helper, numpy_helper

import cldnn_py as cl


def _model(op, data, idx, upd, const_idx, **attrs):
    ins = [helper.make_tensor_value_info("data", T.FLOAT, data.shape)]
    inits = [numpy_helper.from_array(idx, "idx")] if const_idx else []
    if not const_idx:
        ins.append(helper.make_tensor_value_info("idx", T.INT64, idx.shape))
    ins.append(helper.make_tensor_value_info("upd", T.FLOAT, upd.shape))
    g = helper.make_graph([helper.make_node(op, ["data", "idx", "upd"], ["out"], **attrs)], "g", ins,
                          [helper.make_tensor_value_info("out", T.FLOAT, data.shape)], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)


def _check(engine, m, feeds):
    ref = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    net = cl.Network(engine, cl.load_onnx(m))
    net.poison()
    np.testing.assert_allclose(net.run(feeds)["out"], ref, rtol=1e-6, atol=1e-6)


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
@pytest.mark.parametrize("const_idx", [False, True])
@pytest.mark.parametrize("axis", [0, -1])
def test_scatter_elements(engine, rng, reduction, const_idx, axis):
    data = rng.standard_normal((4, 5)).astype(np.float32)
    n = data.shape[axis]
    # distinct indices along the axis for every other coordinate ("none" is then defined), some of them negative
    rows = [rng.permutation(n)[:3] - n * (rng.random(3) < 0.5) for _ in range(data.shape[1 - axis % 2])]
    idx = np.stack(rows, axis=1 if axis == 0 else 0).astype(np.int64)
    upd = rng.standard_normal(idx.shape).astype(np.float32)
    m = _model("ScatterElements", data, idx, upd, const_idx, axis=axis, reduction=reduction)
    feeds = {"data": data, "upd": upd} if const_idx else {"data": data, "idx": idx, "upd": upd}
    _check(engine, m, feeds)


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("reduction", ["none", "add", "max"])
@pytest.mark.parametrize("const_idx", [False, True])
@pytest.mark.parametrize("case", [((4, 5, 6), (2, 1)), ((4, 5, 6), (3, 2)), ((4, 5), (2, 3, 2))], ids=str)
def test_scatter_nd(engine, rng, reduction, const_idx, case):
    dshape, ishape = case
    data = rng.standard_normal(dshape).astype(np.float32)
    m_ = ishape[-1]
    rows = rng.choice(int(np.prod(dshape[:m_])), int(np.prod(ishape[:-1])), replace=False)   # distinct rows
    idx = np.stack(np.unravel_index(rows, dshape[:m_]), axis=-1).reshape(ishape)
    idx[..., 0] -= dshape[0] * (rng.random(ishape[:-1]) < 0.5)            # some negative indices
    upd = rng.standard_normal(ishape[:-1] + dshape[m_:]).astype(np.float32)
    m = _model("ScatterND", data, idx.astype(np.int64), upd, const_idx, reduction=reduction)
    feeds = {"data": data, "upd": upd} if const_idx else {"data": data, "idx": idx.astype(np.int64), "upd": upd}
    _check(engine, m, feeds)
