"""Softmax and LogSoftmax converters vs onnxruntime: versions 1/11 (coerce to 2-D at axis, default 1) and 13
(one axis, default -1), negative axes, ranks 1-5, large logits, and a non-bfyx path."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.onnx.nn_util import check, model, randn

pytest.importorskip("onnxruntime")

CASES = [
    # x shape, axis (None: the version's default), opset
    ((3, 4, 5), None, 13),
    ((3, 4, 5), 1, 13),
    ((3, 4, 5), -3, 13),
    ((3, 4, 5), None, 11),      # coerce at 1: (3, 20)
    ((3, 4, 5), 0, 11),         # the whole tensor
    ((2, 3, 4, 5), 2, 7),       # version 1: coerce at 2: (6, 20)
    ((2, 3, 4, 5), -1, 11),
    ((10,), None, 13),
    ((2, 3, 2, 3, 4), 2, 13),   # rank 5
    ((2, 3, 2, 3, 4), 2, 11),
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-axis{c[1]}-v{c[2]}")
def test_softmax(engine, rng, op, case):
    shape, axis, opset = case
    m = model(op, opset, [("x", shape)], {} if axis is None else {"axis": axis})
    check(engine, m, {"x": randn(rng, shape, 4.0)}, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op,fmt", [("Softmax", cl.Format.b_fs_yx_fsv16), ("LogSoftmax", cl.Format.byxf)])
def test_softmax_non_bfyx_and_large_logits(engine, rng, op, fmt):
    x = randn(rng, (2, 18, 3, 4), 50.0) + np.float32(1000.0)
    m = model(op, 13, [("x", x.shape)], {"axis": 1})
    check(engine, m, {"x": x}, fmt=fmt, rtol=1e-4, atol=1e-4)
