"""permute vs numpy.transpose (ONNX Transpose): ranks 1-4, bfyx/b_fs_yx_fsv16/byxf and padded inputs, i32."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_one_input_padded
from tests.references import permute_ref

CASES = [
    # input shape, order
    ((5,), (0,)),
    ((3, 7), (1, 0)),
    ((2, 5, 3), (2, 0, 1)),
    ((4, 18, 3), (1, 2, 0)),
    ((2, 19, 3, 4), (0, 2, 3, 1)),      # NCHW -> NHWC, 19 features: partial fsv16 slice
    ((2, 3, 4, 17), (0, 3, 1, 2)),      # NHWC -> NCHW
    ((3, 4, 2, 5), (3, 1, 0, 2)),
    ((2, 3, 4, 5), (0, 1, 3, 2)),
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}")
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
def test_permute_matches_reference(engine, rng, case, fmt):
    shape, order = case
    x = f32(rng.standard_normal(shape))
    out = run_single(engine, cl.Permute("p", "x", order=order), {"x": x}, fmt=fmt)
    assert_close(out, permute_ref(x, order), rtol=0, atol=0)
    np.testing.assert_array_equal(out, np.transpose(x, order))


PADDED = [
    (cl.Format.bfyx, cl.Padding((1, 2, 1, 3), (0, 1, 2, 1))),
    (cl.Format.yxfb, cl.Padding((2, 1, 0, 1), (1, 2, 1, 0))),
    (cl.Format.b_fs_yx_fsv16, cl.Padding((1, 0, 1, 2), (1, 0, 2, 0))),
]
OUT_PAD = cl.Padding((0, 1, 2, 1), (2, 0, 1, 3))


@pytest.mark.parametrize("fmt,pad", PADDED, ids=lambda v: getattr(v, "value", None) or "pad")
@pytest.mark.parametrize("case", [((2, 17, 3, 4), (2, 3, 0, 1)), ((5, 6, 2), (1, 2, 0))], ids=str)
def test_permute_padded_buffers(engine, rng, fmt, pad, case):
    """NaN-filled input padding is never read; the padded bfyx output is written only in its interior."""
    shape, order = case
    x = f32(rng.standard_normal(shape))
    prim = cl.Permute("p", "x", order=order)
    out = run_one_input_padded(engine, prim, x, fmt, pad, OUT_PAD)
    assert_close(out, permute_ref(x, order), rtol=0, atol=0)


def test_permute_int32_exact(engine, rng):
    x = rng.integers(-2**30, 2**30, size=(2, 3, 4, 5), dtype=np.int32)
    out = run_single(engine, cl.Permute("p", "x", order=(2, 0, 3, 1)), {"x": x}, fmt=cl.Format.b_fs_yx_fsv16)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.transpose(x, (2, 0, 3, 1)))
