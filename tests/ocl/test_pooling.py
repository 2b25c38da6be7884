"""pooling vs a float64 numpy reference (max, average with pads counted, average without pads; ceil mode,
asymmetric pads, strides larger than the kernel, global pooling; formats; padded buffers) and vs onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_kernel_padded
from tests.references import pool_dilated_ref, pool_ref

M = cl.PoolingMode


CASES = [
    # (N, C, H, W), kernel, stride, pad, pad_end, ceil_mode
    ((1, 3, 7, 8), (3, 3), (2, 2), (0, 0), (0, 0), False),
    ((2, 4, 9, 7), (3, 3), (2, 2), (1, 1), (1, 1), False),
    ((1, 3, 10, 9), (3, 2), (2, 3), (1, 0), (0, 1), True),     # ceil mode, asymmetric pads
    ((1, 2, 8, 11), (3, 3), (2, 2), (2, 1), (1, 2), True),     # ceil mode, asymmetric pads
    ((1, 2, 9, 10), (3, 3), (2, 3), (0, 1), (1, 0), True),     # ceil: last windows run past pad_end (y and x)
    ((1, 3, 11, 9), (3, 2), (2, 3), (1, 0), (0, 1), True),     # ceil: last window past pad_end (y)
    ((1, 2, 11, 10), (2, 2), (3, 4), (1, 0), (0, 1), False),   # strides larger than the kernel
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-k{c[1]}-s{c[2]}-p{c[3]}{c[4]}-ceil{int(c[5])}")
@pytest.mark.parametrize("mode", list(M), ids=lambda m: m.value)
def test_pooling_matches_reference(engine, rng, case, mode):
    shape, k, s, pb, pe, ceil_mode = case
    x = f32(rng.standard_normal(shape))
    prim = cl.Pooling("pool", "x", mode=mode, kernel=k, stride=s, pad=pb, pad_end=pe, ceil_mode=ceil_mode)
    out = run_single(engine, prim, {"x": x})
    assert_close(out, pool_ref(x, mode, k, s, pb, pe, ceil_mode))


@pytest.mark.parametrize("fmt", [cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
@pytest.mark.parametrize("mode", list(M), ids=lambda m: m.value)
def test_pooling_formats(engine, rng, fmt, mode):
    shape, k, s, pb, pe, ceil_mode = (1, 18, 9, 8), (3, 2), (2, 2), (1, 0), (0, 1), True
    x = f32(rng.standard_normal(shape))
    prim = cl.Pooling("pool", "x", mode=mode, kernel=k, stride=s, pad=pb, pad_end=pe, ceil_mode=ceil_mode)
    out = run_single(engine, prim, {"x": x}, fmt=fmt, out_fmt=cl.Format.bfyx)
    assert_close(out, pool_ref(x, mode, k, s, pb, pe, ceil_mode))


@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16])
@pytest.mark.parametrize("mode", [M.max, M.average])
def test_global_pooling(engine, rng, fmt, mode):
    x = f32(rng.standard_normal((2, 5, 6, 7)))
    prim = cl.Pooling("pool", "x", mode=mode, kernel=(2, 2), global_pooling=True)
    out = run_single(engine, prim, {"x": x}, fmt=fmt, out_fmt=cl.Format.bfyx)
    ref = x.astype(np.float64).max(axis=(2, 3), keepdims=True) if mode == M.max else \
        x.astype(np.float64).mean(axis=(2, 3), keepdims=True)
    assert_close(out, ref)


@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.byxf])
def test_pooling_padded_buffers(engine, rng, fmt):
    shape, k, s, pb, pe = (2, 3, 7, 6), (3, 3), (2, 2), (1, 1), (2, 0)
    x = f32(rng.standard_normal(shape))
    lin = cl.Layout(cl.DataType.f32, fmt, shape, cl.Padding((0, 1, 2, 1), (1, 0, 1, 3)))
    prim = cl.Pooling("pool", "x", mode=M.average, kernel=k, stride=s, pad=pb, pad_end=pe, ceil_mode=True)
    lout = prim.calc_output_layout([lin]).with_(padding=cl.Padding((1, 0, 1, 2), (0, 2, 1, 1)))
    out = run_kernel_padded(engine, "pooling", [lin], lout, prim.attrs(), [x])
    assert_close(out, pool_ref(x, M.average, k, s, pb, pe, True))


# ----- onnxruntime: the semantics of ceil mode, asymmetric pads and count_include_pad -------------------------------
def ort_pool(x, op, k, s, pb, pe, ceil_mode, count_include_pad=0):
    """One-node ONNX MaxPool/AveragePool (opset 13) run by onnxruntime."""
    import onnxruntime as ort
    from onnx import TensorProto, helper

    attrs = {"kernel_shape": list(k), "strides": list(s), "pads": [pb[0], pb[1], pe[0], pe[1]],
             "ceil_mode": int(ceil_mode)}
    if op == "AveragePool":
        attrs["count_include_pad"] = count_include_pad
    node = helper.make_node(op, ["x"], ["y"], **attrs)
    graph = helper.make_graph([node], "pool", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=10)
    opts = ort.SessionOptions()
    opts.log_severity_level = 3  # ONNX shape inference ignores the ceil-mode last-window rule and warns
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": x})[0]


ORT_CASES = [
    # mode, (N, C, H, W), kernel, stride, pad, pad_end, ceil_mode; the ceil cases' last windows run past pad_end
    (M.max, (1, 2, 9, 10), (3, 3), (2, 3), (0, 1), (1, 0), True),
    (M.average, (1, 2, 9, 10), (3, 3), (2, 3), (0, 1), (1, 0), True),
    (M.average, (1, 3, 11, 9), (3, 2), (2, 3), (1, 0), (0, 1), True),
    (M.average, (2, 3, 9, 8), (3, 3), (2, 2), (1, 1), (1, 1), False),
    (M.average_no_padding, (1, 2, 9, 10), (3, 3), (2, 3), (0, 1), (1, 0), True),
]


@pytest.mark.parametrize("case", ORT_CASES, ids=lambda c: f"{c[0].value}-{c[1]}-k{c[2]}-s{c[3]}")
def test_pooling_matches_onnxruntime(engine, rng, case):
    mode, shape, k, s, pb, pe, ceil_mode = case
    x = f32(rng.standard_normal(shape))
    op = "MaxPool" if mode == M.max else "AveragePool"
    expected = ort_pool(x, op, k, s, pb, pe, ceil_mode, count_include_pad=int(mode == M.average))
    assert_close(pool_ref(x, mode, k, s, pb, pe, ceil_mode), expected.astype(np.float64), rtol=1e-5, atol=1e-6)
    prim = cl.Pooling("pool", "x", mode=mode, kernel=k, stride=s, pad=pb, pad_end=pe, ceil_mode=ceil_mode)
    assert_close(run_single(engine, prim, {"x": x}), expected.astype(np.float64))


# ----- dilation (ONNX MaxPool-10 / AveragePool-19 dilations) ---------------------------------------------------------
DILATED = [
    # mode, (N, C, H, W), kernel, stride, pad, pad_end, dilation, ceil_mode
    (M.max, (1, 2, 4, 4), (2, 2), (1, 1), (0, 0), (0, 0), (2, 2), True),
    (M.average, (1, 3, 11, 10), (3, 2), (2, 3), (1, 0), (2, 1), (2, 3), False),
    (M.average, (2, 2, 12, 13), (3, 3), (3, 2), (2, 1), (1, 2), (2, 2), True),   # ceil tail past pad_end
    (M.average_no_padding, (2, 2, 12, 13), (3, 3), (3, 2), (2, 1), (1, 2), (2, 2), True),
]


@pytest.mark.parametrize("case", DILATED, ids=lambda c: f"{c[0].value}-{c[1]}-k{c[2]}-s{c[3]}-d{c[6]}-ceil{int(c[7])}")
def test_pooling_dilation(engine, rng, case):
    mode, shape, k, s, pb, pe, d, ceil_mode = case
    x = f32(rng.standard_normal(shape))
    prim = cl.Pooling("pool", "x", mode=mode, kernel=k, stride=s, pad=pb, pad_end=pe, dilation=d,
                      ceil_mode=ceil_mode)
    fmt = cl.Format.byxf if mode == M.average else cl.Format.bfyx
    out = run_single(engine, prim, {"x": x}, fmt=fmt, out_fmt=cl.Format.bfyx if fmt != cl.Format.bfyx else None)
    assert_close(out, pool_dilated_ref(x, mode, k, s, pb, pe, d, ceil_mode))
