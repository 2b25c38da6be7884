"""f16 storage in resize_ref and resize_b_fs_yx_fsv16: each forced on padded half buffers (a channel count that is
not a multiple of 16 for the blocked kernel, whose block tail must survive), vs the float64 reference of the half
values: nearest modes copy, so bit for bit; linear and cubic sum taps in float and round once (half's tolerance);
tf_crop_and_resize's extrapolated pixels hold the value rounded to half; f32 <-> f16 mixed edges."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.primitives.resize import Resize
from tests.ocl.half import assert_half_close, run_kernel_half
from tests.ocl.padded import run_kernel_padded
from tests.references import resize_ref

F16, F32 = cl.DataType.f16, cl.DataType.f32
BFYX, FSV16 = cl.Format.bfyx, cl.Format.b_fs_yx_fsv16
PAD_IN = cl.Padding((1, 0, 1, 2), (0, 0, 2, 1))
PAD_OUT = cl.Padding((0, 0, 2, 1), (1, 0, 0, 1))

CASES = [
    # input shape, sizes, primitive attributes, reference keywords
    ((2, 18, 3, 4), (2, 18, 6, 9), dict(mode="nearest", coordinate_transformation_mode="asymmetric",
                                        nearest_mode="floor"), dict(ctm="asymmetric", nearest_mode="floor")),
    ((1, 19, 4, 3), (1, 19, 7, 8), dict(mode="linear", coordinate_transformation_mode="pytorch_half_pixel"),
     dict(mode="linear", ctm="pytorch_half_pixel")),
    ((1, 5, 4, 6), (1, 5, 7, 11), dict(mode="cubic", coordinate_transformation_mode="half_pixel"),
     dict(mode="cubic", ctm="half_pixel")),
]


def _run(engine, x, sizes, attrs, kernel, fmt):
    prim = Resize("p", "x", sizes=sizes, **attrs)
    lin = cl.Layout(F32, fmt, x.shape, PAD_IN)
    lout = cl.Layout(F32, fmt, sizes, PAD_OUT)
    return run_kernel_half(engine, "resize", [lin], lout, prim.attrs(), [x], kernel=kernel)


@pytest.mark.parametrize("kernel", ["resize_ref", "resize_b_fs_yx_fsv16"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}->{c[1]}-{c[2]['mode']}")
def test_resize_half(ocl_engine, rng, kernel, case):
    shape, sizes, attrs, ref_kw = case
    x = (rng.standard_normal(shape) * 20).astype(np.float32)
    out, (xv,) = _run(ocl_engine, x, sizes, attrs, kernel, FSV16)
    ref = resize_ref(xv, sizes, **ref_kw)
    assert out.dtype == np.float16
    if attrs["mode"] == "nearest":  # a copy of half values: exact
        np.testing.assert_array_equal(out.view(np.uint16), ref.astype(np.float16).view(np.uint16))
    else:
        assert_half_close(out, ref)


def test_resize_ref_half_extrapolation(ocl_engine, rng):
    x = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    roi = (0, 0, 0.2, -0.3, 1, 1, 1.3, 0.8)
    attrs = dict(mode="linear", coordinate_transformation_mode="tf_crop_and_resize", roi=roi,
                 extrapolation_value=0.1)
    out, (xv,) = _run(ocl_engine, x, (1, 2, 4, 5), attrs, "resize_ref", BFYX)
    ex = float(np.float16(0.1))
    ref = resize_ref(xv, (1, 2, 4, 5), roi=roi, extrapolation=ex, mode="linear", ctm="tf_crop_and_resize")
    assert (out == np.float16(0.1)).any()  # some pixels are extrapolated
    assert_half_close(out, ref)


@pytest.mark.parametrize("kernel", ["resize_ref", "resize_b_fs_yx_fsv16"])
@pytest.mark.parametrize(("dt_in", "dt_out"), [(F32, F16), (F16, F32)])
def test_resize_mixed_f32_f16(ocl_engine, rng, kernel, dt_in, dt_out):
    """Nearest x2 across a mixed edge: f32 -> f16 rounds to nearest even (numpy's rounding), f16 -> f32 exact."""
    x = (rng.standard_normal((1, 18, 3, 4)) * 300).astype(dt_in.numpy)
    sizes = (1, 18, 6, 8)
    prim = Resize("p", "x", sizes=sizes, mode="nearest", coordinate_transformation_mode="asymmetric",
                  nearest_mode="floor")
    lin = cl.Layout(dt_in, FSV16, x.shape, PAD_IN)
    lout = cl.Layout(dt_out, FSV16, sizes, PAD_OUT)
    out = run_kernel_padded(ocl_engine, "resize", [lin], lout, prim.attrs(), [x], kernel=kernel)
    ref = resize_ref(x.astype(np.float64), sizes, ctm="asymmetric", nearest_mode="floor")
    assert out.dtype == dt_out.numpy
    np.testing.assert_array_equal(out, ref.astype(dt_out.numpy))
