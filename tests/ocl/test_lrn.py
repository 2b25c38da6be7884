"""lrn (across channels, ONNX convention) vs a float64 numpy reference; semantics checked against onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_single
from tests.ocl.lrn_cases import CASES
from tests.ocl.padded import run_kernel_padded
from tests.references import lrn_ref


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-n{c[1]}-a{c[2]}-b{c[3]}-k{c[4]}")
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
def test_lrn_matches_reference(engine, rng, case, fmt):
    shape, size, alpha, beta, k = case
    x = f32(rng.standard_normal(shape) * 2)
    prim = cl.LRN("lrn", "x", size=size, alpha=alpha, beta=beta, k=k)
    out = run_single(engine, prim, {"x": x}, fmt=fmt, out_fmt=cl.Format.bfyx)
    assert_close(out, lrn_ref(x, size, alpha, beta, k), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("size", [3, 5])
def test_lrn_matches_onnxruntime(engine, rng, size):
    """One-node ONNX LRN model (opset 13) run by onnxruntime: the kernel and the numpy reference agree with it.

    onnxruntime's CPU LRN accepts only odd sizes (``size_ % 2 == 1``), so the even-size window is covered by the
    numpy reference alone (it follows the ONNX spec's floor/ceil formula)."""
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper

    shape, alpha, beta, k = (1, 10, 4, 3), 0.8, 0.7, 1.5
    node = helper.make_node("LRN", ["x"], ["y"], size=size, alpha=alpha, beta=beta, bias=k)
    graph = helper.make_graph([node], "lrn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    x = f32(rng.standard_normal(shape) * 2)
    (expected,) = sess.run(None, {"x": x})
    np.testing.assert_allclose(lrn_ref(x, size, alpha, beta, k), expected, rtol=1e-5, atol=1e-6)
    out = run_single(engine, cl.LRN("lrn", "x", size=size, alpha=alpha, beta=beta, k=k), {"x": x})
    assert_close(out, expected.astype(np.float64), rtol=1e-4, atol=1e-5)


def test_lrn_padded_buffers(engine, rng):
    """Padded byxf input (feature padding too: the window must not read it) and padded fsv16 output."""
    shape = (2, 13, 3, 4)
    lin = cl.Layout(cl.DataType.f32, cl.Format.byxf, shape, cl.Padding((1, 2, 0, 1), (0, 3, 2, 1)))
    lout = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((0, 0, 1, 2), (1, 0, 1, 0)))
    x = f32(rng.standard_normal(shape) * 2)
    attrs = {"size": 5, "alpha": 0.7, "beta": 0.75, "k": 1.0}
    out = run_kernel_padded(engine, "lrn", [lin], lout, attrs, [x])
    assert_close(out, lrn_ref(x, 5, 0.7, 0.75, 1.0), rtol=1e-4, atol=1e-5)
