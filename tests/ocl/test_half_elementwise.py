"""f16 storage in the reference element-wise kernels (reorder_ref, reorder_gpu_wg, activation_ref, eltwise_ref):
each forced, half in and out (and f32 <-> f16 conversions), vs float64 references on half-rounded random data."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.ocl.half import assert_half_close, run_kernel_half
from tests.ocl.padded import run_kernel_padded

F16, F32 = cl.DataType.f16, cl.DataType.f32
SHAPE = (2, 19, 3, 5)


@pytest.mark.ocl_every(2)
@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
@pytest.mark.parametrize("fmt_in,fmt_out", [(cl.Format.bfyx, cl.Format.b_fs_yx_fsv16),
                                            (cl.Format.b_fs_yx_fsv16, cl.Format.byxf)])
@pytest.mark.parametrize("kernel", ["reorder_ref", "reorder_gpu_wg"])
@pytest.mark.parametrize("dt_in,dt_out", [(F32, F16), (F16, F32), (F16, F16)])
def test_reorder_converts_half(ocl_engine, rng, kernel, fmt_in, fmt_out, dt_in, dt_out):
    x = (rng.standard_normal(SHAPE) * 300).astype(np.float32)
    x.flat[:4] = [70000.0, -70000.0, 1e-9, 65504.0]  # past half's range: inf; below its subnormals: 0
    x.flat[4:6] = [6.1e-5 / 3, -3e-6]  # half subnormals
    lin = cl.Layout(dt_in, fmt_in, SHAPE, cl.Padding((0, 0, 1, 0), (0, 0, 0, 2)))
    lout = cl.Layout(dt_out, fmt_out, SHAPE, cl.Padding((0, 0, 0, 1), (0, 0, 1, 0)))
    attrs = {"format": fmt_out, "dtype": dt_out, "convert_mode": "round"}
    tier = "gpu" if kernel == "reorder_gpu_wg" else "cpu"
    xin = x.astype(dt_in.numpy)
    out = run_kernel_padded(ocl_engine, "reorder", [lin], lout, attrs, [xin], kernel=kernel, kernel_tier=tier)
    assert out.dtype == dt_out.numpy
    expected = xin.astype(np.float64).astype(dt_out.numpy)  # numpy rounds to nearest even, as vstore_half_rte
    np.testing.assert_array_equal(out, expected)


def test_reorder_half_to_int_rounds_to_nearest_even(ocl_engine, rng):
    x = (rng.standard_normal(SHAPE) * 100).astype(np.float16)
    x.flat[:4] = [2.5, -2.5, 3.5, 0.5]
    lin = cl.Layout(F16, cl.Format.bfyx, SHAPE)
    lout = cl.Layout(cl.DataType.i32, cl.Format.bfyx, SHAPE)
    out = run_kernel_padded(ocl_engine, "reorder", [lin], lout, {"format": cl.Format.bfyx, "dtype": cl.DataType.i32,
                                                             "convert_mode": "round"}, [x], kernel="reorder_ref")
    np.testing.assert_array_equal(out, np.rint(x.astype(np.float64)).astype(np.int32))


@pytest.mark.parametrize("func", ["relu", "logistic", "hard_swish"])
def test_activation_ref_half(ocl_engine, rng, func):
    x = rng.standard_normal(SHAPE).astype(np.float32) * 4
    lay = cl.Layout(F32, cl.Format.b_fs_yx_fsv16, SHAPE, cl.Padding((0, 0, 1, 1), (0, 0, 1, 1)))
    prim = cl.Activation("a", "x", func=func)
    out, (xv,) = run_kernel_half(ocl_engine, "activation", [lay], lay, prim.attrs(), [x], kernel="activation_ref")
    refs = {"relu": lambda v: np.maximum(v, 0), "logistic": lambda v: 1 / (1 + np.exp(-v)),
            "hard_swish": lambda v: v * np.clip(v + 3, 0, 6) / 6}
    assert out.dtype == np.float16
    assert_half_close(out, refs[func](xv))


@pytest.mark.parametrize("mode", ["sum", "prod", "max"])
def test_eltwise_ref_half_broadcast(ocl_engine, rng, mode):
    a = rng.standard_normal(SHAPE).astype(np.float32)
    b = rng.standard_normal((1, 19, 1, 5)).astype(np.float32)
    la = cl.Layout(F32, cl.Format.bfyx, SHAPE)
    lb = cl.Layout(F32, cl.Format.bfyx, b.shape)
    prim = cl.Eltwise("e", ["a", "b"], mode=mode)
    out, (av, bv) = run_kernel_half(ocl_engine, "eltwise", [la, lb], la, prim.attrs(), [a, b], kernel="eltwise_ref")
    ref = {"sum": np.add, "prod": np.multiply, "max": np.maximum}[mode](av, bv)
    assert_half_close(out, ref)
