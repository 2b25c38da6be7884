"""softmax vs a float64 numpy reference: every axis (negative too), ranks 1-4, large inputs (stability), formats."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_kernel_padded


def softmax_ref(x, axis):
    """exp(x) / Σ exp(x) along ``axis`` in float64 (shifted by the max so float64 cannot overflow either)."""
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


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
