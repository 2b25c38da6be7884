"""softmax vs a float64 numpy reference: every axis (negative too), ranks 1-4, large inputs (stability), formats."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_kernel_padded
from tests.references import softmax_ref

CASES = [
    # shape, axis
    ((2, 1000), 1),          # classifier output after a fully connected layer
    ((3, 10), -1),
    ((4, 6), 0),
    ((37,), 0),              # rank 1
    ((2, 19, 3, 4), 1),
    ((2, 5, 6, 3), 2),
    ((2, 5, 3, 7), 3),
    ((3, 4, 2, 5), 0),
    ((2, 17, 3, 4), -3),     # = axis 1
    ((2, 3, 8), 2),          # rank 3, last axis maps to dims4 y
    ((2, 9, 5), -2),         # rank 3, axis 1
]


# every case in bfyx plus one other format, alternating, to keep the number of Program builds down
_OTHER = [cl.Format.b_fs_yx_fsv16, cl.Format.byxf]
PARAMS = [(c, f) for i, c in enumerate(CASES) for f in (cl.Format.bfyx, _OTHER[i % 2])]


@pytest.mark.parametrize(("case", "fmt"), PARAMS, ids=[f"{c[0]}-axis{c[1]}-{f.value}" for c, f in PARAMS])
def test_softmax_matches_reference(engine, rng, case, fmt):
    shape, axis = case
    x = f32(rng.standard_normal(shape) * 4)
    out = run_single(engine, cl.Softmax("sm", "x", axis=axis), {"x": x}, fmt=fmt, out_fmt=cl.Format.bfyx)
    assert_close(out, softmax_ref(x, axis), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("axis", [1, 3])
def test_softmax_is_numerically_stable(engine, rng, axis):
    """Logits around ±100 and spread by 50 overflow exp() in float32 unless the row maximum is subtracted."""
    shape = (2, 6, 3, 5)
    x = f32(rng.standard_normal(shape) * 50 + rng.choice([-100.0, 100.0], size=shape))
    out = run_single(engine, cl.Softmax("sm", "x", axis=axis), {"x": x})
    ref = softmax_ref(x, axis)
    assert_close(out, ref, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out.sum(axis=axis), 1.0, rtol=1e-5)


@pytest.mark.parametrize("axis", [1, 2])
def test_softmax_padded_buffers(engine, rng, axis):
    """Padded input and output: the row loops read and write interiors only (padding holds NaN)."""
    shape = (2, 19, 4, 3)
    lin = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((1, 0, 2, 1), (0, 0, 1, 2)))
    lout = cl.Layout(cl.DataType.f32, cl.Format.byxf, shape, cl.Padding((0, 2, 1, 0), (1, 1, 0, 3)))
    x = f32(rng.standard_normal(shape) * 3)
    out = run_kernel_padded(engine, "softmax", [lin], lout, {"axis": axis}, [x])
    assert_close(out, softmax_ref(x, axis), rtol=1e-4, atol=1e-6)


# ----- log-softmax, ONNX opset < 13 "coerce to 2-D", rank 5-6 ---------------------------------------------------
def softmax_general_ref(x, axis, log=False, coerce_2d=False):
    """float64 (log-)softmax; with coerce_2d the input is viewed as 2-D at ``axis`` (ONNX Softmax-1/11)."""
    x = x.astype(np.float64)
    axis %= x.ndim
    shape = x.shape
    if coerce_2d:
        x = x.reshape(int(np.prod(shape[:axis])), -1)
        axis = 1
    m = x.max(axis=axis, keepdims=True)
    lse = m + np.log(np.exp(x - m).sum(axis=axis, keepdims=True))
    y = x - lse if log else np.exp(x - lse)
    return y.reshape(shape)


GENERAL = [
    # shape, axis, log, coerce_2d, fmt
    ((2, 3, 4, 5), -1, True, False, cl.Format.b_fs_yx_fsv16),
    ((2, 3, 4, 5), 2, True, True, cl.Format.byxf),         # over (4, 5) together
    ((3, 4, 5), 0, False, True, cl.Format.bfyx),           # the whole tensor
    ((2, 18, 3), 1, False, True, cl.Format.b_fs_yx_fsv16),
    ((2, 3, 2, 3, 4), 3, False, False, cl.Format.bfyx),    # rank 5
    ((2, 2, 3, 2, 3, 2), 2, True, True, cl.Format.bfyx),   # rank 6
]


@pytest.mark.parametrize("case", GENERAL, ids=lambda c: f"{c[0]}-axis{c[1]}-log{int(c[2])}-c2d{int(c[3])}-"
                         f"{c[4].value}")
def test_softmax_log_and_coerce_2d(engine, rng, case):
    shape, axis, log, coerce, fmt = case
    x = f32(rng.standard_normal(shape) * 5)
    prim = cl.Softmax("sm", "x", axis=axis, log=log, coerce_2d=coerce)
    out = run_single(engine, prim, {"x": x}, fmt=fmt, out_fmt=cl.Format.bfyx if fmt != cl.Format.bfyx else None)
    assert_close(out, softmax_general_ref(x, axis, log, coerce), rtol=1e-4, atol=1e-5)


def test_log_softmax_stays_finite_where_softmax_underflows(engine, rng):
    """Logits 200 apart: exp underflows to 0 in float32, but log-softmax is just x - max (about -200)."""
    x = f32(rng.standard_normal((3, 6)) + np.array([0, -200, -150, 0, -300, 5], np.float32))
    out = run_single(engine, cl.Softmax("sm", "x", axis=1, log=True), {"x": x})
    assert np.isfinite(out).all()
    assert_close(out, softmax_general_ref(x, 1, log=True), rtol=1e-5, atol=1e-4)


def test_log_softmax_padded_buffers(engine, rng):
    shape = (2, 19, 4, 3)
    lin = cl.Layout(cl.DataType.f32, cl.Format.byxf, shape, cl.Padding((1, 0, 2, 1), (0, 1, 1, 2)))
    lout = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((0, 0, 1, 0), (1, 0, 0, 3)))
    x = f32(rng.standard_normal(shape) * 3)
    out = run_kernel_padded(engine, "softmax", [lin], lout, {"axis": 1, "log": True, "coerce_2d": True}, [x])
    assert_close(out, softmax_general_ref(x, 1, log=True, coerce_2d=True), rtol=1e-4, atol=1e-5)
