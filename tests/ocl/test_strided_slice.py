"""strided_slice vs Python/numpy slicing: ranks 1-6, negative and clamped begin/end, negative steps, bfyx /
b_fs_yx_fsv16 / byxf, padded buffers, integer data."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.primitives.strided_slice import StridedSlice
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_kernel_padded


def slice_ref(x: np.ndarray, begin, end, steps) -> np.ndarray:
    """numpy basic slicing with Python slice objects (the ONNX Slice rule), in float64."""
    return x.astype(np.float64)[tuple(slice(b, e, s) for b, e, s in zip(begin, end, steps))]


CASES = [
    # input shape, begin, end, steps
    ((9,), (1,), (8,), (3,)),
    ((9,), (-1,), (-100,), (-2,)),                                   # negative step, end clamped to "before 0"
    ((5, 7), (-3, 100), (5, -8), (1, -1)),                           # begin clamped to n - 1 for a negative step
    ((4, 21, 6), (1, 2, 0), (4, 20, 6), (2, 3, 5)),                  # crosses fsv16 slices
    ((2, 19, 5, 6), (0, 18, -1, 1), (2, 0, -6, 6), (1, -4, -2, 2)),
    ((3, 4, 5, 6), (-100, 1, 1, 0), (100, 3, 5, 1), (1, 1, 1, 1)),
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}[{c[1]}:{c[2]}:{c[3]}]")
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
def test_strided_slice_matches_numpy(engine, rng, case, fmt):
    shape, begin, end, steps = case
    x = f32(rng.standard_normal(shape))
    out = run_single(engine, StridedSlice("s", "x", begin=begin, end=end, steps=steps), {"x": x}, fmt=fmt)
    assert_close(out, slice_ref(x, begin, end, steps), rtol=0, atol=0)


@pytest.mark.parametrize("case", [
    ((2, 3, 4, 5, 6), (0, 2, 1, -1, 0), (2, -5, 4, 0, 6), (1, -1, 2, -2, 3)),
    ((2, 3, 2, 3, 2, 4), (1, 0, 0, 2, 1, -1), (2, 3, 2, -5, 2, 0), (1, 2, 1, -1, 1, -1)),
], ids=["rank5", "rank6"])
def test_strided_slice_rank5_6(engine, rng, case):
    shape, begin, end, steps = case
    x = f32(rng.standard_normal(shape))
    out = run_single(engine, StridedSlice("s", "x", begin=begin, end=end, steps=steps), {"x": x})
    assert_close(out, slice_ref(x, begin, end, steps), rtol=0, atol=0)


@pytest.mark.parametrize("fmt,pad,out_pad", [
    (cl.Format.bfyx, cl.Padding((1, 2, 1, 3), (0, 1, 2, 1)), cl.Padding((0, 1, 2, 1), (2, 0, 1, 3))),
    (cl.Format.b_fs_yx_fsv16, cl.Padding((1, 0, 1, 2), (1, 0, 2, 0)), cl.Padding((2, 0, 0, 1), (0, 0, 1, 2))),
], ids=["bfyx", "fsv16"])
def test_strided_slice_padded_buffers(engine, rng, fmt, pad, out_pad):
    """NaN-filled input padding is never read; the padded output is written only in its interior."""
    shape, begin, end, steps = (2, 19, 5, 6), (1, -1, 0, 5), (2, 0, 5, -7), (1, -3, 2, -2)
    x = f32(rng.standard_normal(shape))
    prim = StridedSlice("s", "x", begin=begin, end=end, steps=steps)
    lin = cl.Layout(cl.DataType.f32, fmt, shape, pad)
    lout = prim.calc_output_layout([lin])
    out = run_kernel_padded(engine, "strided_slice", [lin], lout.with_(padding=out_pad), prim.attrs(), [x])
    assert_close(out, slice_ref(x, begin, end, steps), rtol=0, atol=0)


def test_strided_slice_int32_exact(engine, rng):
    x = rng.integers(-2**30, 2**30, size=(3, 5, 4), dtype=np.int32)
    out = run_single(engine, StridedSlice("s", "x", begin=(2, 0, 3), end=(-4, 5, 0), steps=(-1, 2, -1)), {"x": x})
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, x[2:-4:-1, 0:5:2, 3:0:-1])


def test_strided_slice_errors():
    with pytest.raises(cl.TopologyError, match="non-zero steps"):
        StridedSlice("s", "x", begin=(0,), end=(1,), steps=(0,))
    lay = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (4, 5))
    with pytest.raises(cl.ShapeError, match="no empty dimension"):
        StridedSlice("s", "x", begin=(0, 3), end=(4, 3)).calc_output_layout([lay])
    with pytest.raises(cl.ShapeError, match="input rank"):
        StridedSlice("s", "x", begin=(0,), end=(4,)).calc_output_layout([lay])
