"""MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool converters vs onnxruntime: kernel/stride/asymmetric pads,
ceil_mode, dilations, auto_pad, count_include_pad, 1-D (as 2-D), 3-D (two separable 2-D poolings), global pooling
of ranks 3-5, several op versions, a non-bfyx path, and the refused Indices output."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from cldnn_py.frontend.onnx import load_onnx
from tests.onnx.nn_util import check, model, randn

pytest.importorskip("onnxruntime")

POOL = [
    # op, x shape, attrs, opset
    ("MaxPool", (1, 3, 9, 10), {"kernel_shape": [3, 3], "strides": [2, 3], "pads": [0, 1, 1, 0]}, 7),
    ("MaxPool", (2, 2, 9, 10), {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [1, 0, 0, 1],
                                "ceil_mode": 1}, 10),
    ("MaxPool", (1, 2, 10, 11), {"kernel_shape": [2, 3], "dilations": [2, 2], "strides": [1, 2],
                                 "ceil_mode": 1}, 12),
    ("MaxPool", (1, 3, 9, 8), {"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "SAME_UPPER"}, 8),
    ("MaxPool", (1, 3, 9, 8), {"kernel_shape": [2, 2], "auto_pad": "SAME_LOWER", "storage_order": 1}, 22),
    ("MaxPool", (2, 3, 11), {"kernel_shape": [3], "strides": [2], "pads": [1, 1], "ceil_mode": 1}, 11),   # 1-D
    ("MaxPool", (1, 2, 7, 8, 9), {"kernel_shape": [3, 2, 3], "strides": [2, 2, 1], "pads": [1, 0, 1, 0, 1, 1],
                                  "dilations": [1, 2, 1], "ceil_mode": 1}, 12),                            # 3-D
    ("AveragePool", (1, 3, 9, 10), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, 7),
    ("AveragePool", (1, 3, 9, 10), {"kernel_shape": [3, 3], "strides": [2, 3], "pads": [0, 1, 1, 0],
                                    "count_include_pad": 1, "ceil_mode": 1}, 10),
    ("AveragePool", (1, 2, 8, 7), {"kernel_shape": [3, 2], "strides": [2, 2], "auto_pad": "SAME_UPPER",
                                   "count_include_pad": 1}, 11),
    ("AveragePool", (1, 2, 8, 7), {"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "SAME_LOWER"}, 11),
    ("AveragePool", (1, 2, 10, 11), {"kernel_shape": [2, 3], "dilations": [2, 2], "pads": [1, 1, 1, 1],
                                     "count_include_pad": 1}, 19),
    ("AveragePool", (1, 2, 10, 11), {"kernel_shape": [3, 2], "dilations": [2, 3], "pads": [1, 0, 2, 1],
                                     "strides": [2, 1], "ceil_mode": 1}, 22),
    ("AveragePool", (2, 3, 12), {"kernel_shape": [4], "strides": [3], "pads": [1, 2],
                                 "count_include_pad": 1}, 11),                                              # 1-D
    ("AveragePool", (1, 2, 6, 7, 8), {"kernel_shape": [3, 3, 2], "strides": [2, 2, 2], "pads": [1, 1, 0, 1, 0, 1],
                                      "count_include_pad": 1, "ceil_mode": 1}, 19),                         # 3-D
    ("AveragePool", (1, 2, 6, 7, 8), {"kernel_shape": [2, 3, 3], "strides": [1, 2, 2], "pads": [1, 1, 1, 0, 1, 0],
                                      "dilations": [2, 1, 1]}, 19),                                          # 3-D
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", POOL, ids=lambda c: f"{c[0]}-{c[1]}-{sorted(c[2])}-v{c[3]}")
def test_pool(engine, rng, case):
    op, xs, attrs, opset = case
    m = model(op, opset, [("x", xs)], attrs)
    check(engine, m, {"x": randn(rng, xs)}, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["GlobalAveragePool", "GlobalMaxPool"])
@pytest.mark.parametrize("shape", [(2, 3, 7), (2, 5, 4, 6), (1, 3, 2, 3, 4)], ids=str)
def test_global_pool(engine, rng, op, shape):
    m = model(op, 11 if shape[-1] != 4 else 22, [("x", shape)])
    check(engine, m, {"x": randn(rng, shape)}, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op,fmt", [("MaxPool", cl.Format.b_fs_yx_fsv16), ("AveragePool", cl.Format.byxf),
                                    ("GlobalAveragePool", cl.Format.b_fs_yx_fsv16)])
def test_pool_non_bfyx_input(engine, rng, op, fmt):
    attrs = {} if op.startswith("Global") else {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 0, 0],
                                                 "ceil_mode": 1}
    m = model(op, 13, [("x", (1, 18, 7, 8))], attrs)
    check(engine, m, {"x": randn(rng, (1, 18, 7, 8))}, fmt=fmt, rtol=1e-5, atol=1e-5)


def test_maxpool_indices_output_is_refused():
    from onnx import TensorProto, helper

    node = helper.make_node("MaxPool", ["x"], ["y", "idx"], kernel_shape=[2, 2])
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 3, 3]),
                           helper.make_tensor_value_info("idx", TensorProto.INT64, [1, 1, 3, 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 12)], ir_version=10)
    with pytest.raises(cl.UnsupportedError, match="Indices output"):
        load_onnx(m)
