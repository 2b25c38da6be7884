"""resize vs a per-output-element float64 reference written from the ONNX Resize specification: nearest (every
rounding mode), linear, cubic (coefficient a, exclude_outside), antialias, every coordinate transformation mode,
tf_crop_and_resize extrapolation, ranks 1-5, bfyx / b_fs_yx_fsv16 / byxf and padded buffers."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from cldnn_py.primitives.resize import Resize
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_one_input_padded
from tests.references import resize_ref


def _run(engine, x, sizes, fmt=cl.Format.bfyx, **kw):
    return run_single(engine, Resize("r", "x", sizes=sizes, **kw), {"x": x}, fmt=fmt)


NEAREST = [
    # input shape, output sizes, coordinate mode, nearest mode
    ((1, 2, 3, 4), (1, 2, 7, 9), "half_pixel", "round_prefer_floor"),
    ((1, 2, 6, 8), (1, 2, 4, 3), "asymmetric", "round_prefer_ceil"),
    ((2, 3, 4, 5), (2, 3, 8, 8), "align_corners", "floor"),
    ((1, 19, 3, 3), (1, 19, 5, 4), "half_pixel", "ceil"),
    ((2, 3, 4, 4), (2, 3, 9, 2), "tf_half_pixel_for_nn", "round_prefer_floor"),   # b, f: scale 1, untouched
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", NEAREST, ids=lambda c: f"{c[0]}->{c[1]}-{c[2]}-{c[3]}")
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16])
def test_resize_nearest(engine, rng, case, fmt):
    shape, sizes, ctm, nm = case
    x = f32(rng.standard_normal(shape))
    out = _run(engine, x, sizes, fmt, mode="nearest", coordinate_transformation_mode=ctm, nearest_mode=nm)
    assert_close(out, resize_ref(x, sizes, ctm=ctm, nearest_mode=nm), rtol=0, atol=0)


INTERP = [
    # mode, input shape, sizes, scales (None: sizes / input), coordinate mode, extra attributes
    ("linear", (1, 2, 4, 5), (1, 2, 8, 7), None, "half_pixel", {}),
    ("linear", (2, 3, 6, 8), (2, 3, 4, 3), None, "pytorch_half_pixel", {}),
    ("linear", (1, 2, 4, 4), (1, 2, 7, 1), None, "align_corners", {}),
    ("linear", (1, 1, 2, 4), (1, 1, 1, 2), (1, 1, 0.6, 0.6), "align_corners", {}),  # resized length 2.4
    ("linear", (1, 1, 4, 6), (1, 1, 6, 9), (1, 1, 1.6, 1.6), "half_pixel_symmetric", {}),
    ("linear", (1, 1, 8, 8), (1, 1, 3, 5), None, "half_pixel", {"antialias": True}),
    ("cubic", (1, 2, 4, 4), (1, 2, 8, 7), None, "half_pixel", {}),
    ("cubic", (1, 1, 5, 6), (1, 1, 3, 9), None, "asymmetric", {"cubic_coeff_a": -0.5, "exclude_outside": True}),
    ("cubic", (1, 1, 9, 7), (1, 1, 4, 3), None, "align_corners", {"antialias": True}),
    ("linear", (6,), (11,), None, "half_pixel", {}),                       # 1-D
    ("linear", (5, 4), (3, 9), None, "asymmetric", {}),                    # 2-D
    ("linear", (2, 3, 4, 2, 3), (2, 3, 2, 4, 5), None, "half_pixel", {}),   # rank 5
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", INTERP, ids=lambda c: f"{c[0]}-{c[1]}->{c[2]}-{c[4]}-{sorted(c[5])}")
def test_resize_linear_cubic(engine, rng, case):
    mode, shape, sizes, scales, ctm, extra = case
    x = f32(rng.standard_normal(shape))
    fmt = cl.Format.byxf if len(shape) == 4 else cl.Format.bfyx
    out = _run(engine, x, sizes, fmt, scales=scales, mode=mode, coordinate_transformation_mode=ctm, **extra)
    ref = resize_ref(x, sizes, scales=scales, mode=mode, ctm=ctm, a=extra.get("cubic_coeff_a", -0.75),
                     exclude_outside=extra.get("exclude_outside", False), antialias=extra.get("antialias", False))
    assert_close(out, ref, rtol=1e-5, atol=1e-5)


def test_resize_tf_crop_and_resize(engine, rng):
    x = f32(rng.standard_normal((1, 2, 5, 6)))
    roi = (0, 0, 0.2, -0.3, 1, 1, 1.3, 0.8)
    out = _run(engine, x, (1, 2, 4, 5), mode="linear", coordinate_transformation_mode="tf_crop_and_resize",
               roi=roi, extrapolation_value=7.5)
    ref = resize_ref(x, (1, 2, 4, 5), roi=roi, extrapolation=7.5, mode="linear", ctm="tf_crop_and_resize")
    assert (ref == 7.5).any() and (ref != 7.5).any()
    assert_close(out, ref, rtol=1e-5, atol=1e-5)


def test_resize_padded_buffers(engine, rng):
    """NaN-filled input padding is never read (edge taps are clamped); the output padding is kept."""
    x = f32(rng.standard_normal((1, 19, 4, 5)))
    prim = Resize("r", "x", sizes=(1, 19, 7, 9), mode="cubic")
    out = run_one_input_padded(engine, prim, x, cl.Format.b_fs_yx_fsv16,
                               cl.Padding((1, 0, 1, 2), (1, 0, 2, 0)), cl.Padding((0, 0, 1, 2), (1, 0, 0, 1)))
    assert_close(out, resize_ref(x, (1, 19, 7, 9), mode="cubic"), rtol=1e-5, atol=1e-5)


def test_resize_errors():
    with pytest.raises(cl.TopologyError, match="mode must be one of"):
        Resize("r", "x", sizes=(2,), mode="area")
    with pytest.raises(cl.TopologyError, match="roi"):
        Resize("r", "x", sizes=(2,), coordinate_transformation_mode="tf_crop_and_resize")
    with pytest.raises(cl.ShapeError, match="input rank"):
        Resize("r", "x", sizes=(2, 2)).calc_output_layout([cl.Layout(cl.DataType.f32, cl.Format.bfyx, (3,))])
