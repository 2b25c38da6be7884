"""gather vs numpy.take: every axis, index tensors of rank 0-2, negative indices, ranks up to 6, bfyx /
b_fs_yx_fsv16 / byxf data, padded buffers, integer data."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.primitives.gather import Gather
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_kernel_padded


def gather_ref(x: np.ndarray, idx: np.ndarray, axis: int) -> np.ndarray:
    """numpy.take in float64 (negative indices wrap as in ONNX Gather)."""
    return np.take(x.astype(np.float64), idx, axis=axis)


CASES = [
    # data shape, indices shape, axis
    ((7,), (3,), 0),
    ((5, 4), (2, 3), 0),
    ((5, 4), (2,), -1),
    ((3, 19, 4), (2, 2), 1),
    ((2, 19, 3, 4), (5,), 1),
    ((2, 3, 5, 4), (2, 2), 2),
    ((2, 3, 4, 6), (3,), 3),
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}@{c[2]}")
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
def test_gather_matches_numpy(engine, rng, case, fmt):
    shape, ishape, axis = case
    x = f32(rng.standard_normal(shape))
    n = shape[axis]
    idx = rng.integers(-n, n, size=ishape, dtype=np.int32)
    out = run_single(engine, Gather("g", "x", "i", axis=axis), {"x": x}, data={"i": idx}, fmt=fmt)
    assert_close(out, gather_ref(x, idx, axis), rtol=0, atol=0)


def test_gather_scalar_index_and_rank6(engine, rng):
    x = f32(rng.standard_normal((3, 4, 5)))
    out = run_single(engine, Gather("g", "x", "i", axis=1, scalar_index=True), {"x": x},
                     data={"i": np.array([-2], np.int32)})
    assert_close(out, x.astype(np.float64)[:, -2, :], rtol=0, atol=0)
    x4 = f32(rng.standard_normal((2, 3, 4, 5)))
    idx = rng.integers(-3, 3, size=(2, 3), dtype=np.int32)
    out = run_single(engine, Gather("g", "x", "i", axis=1), {"x": x4}, data={"i": idx})   # rank 5 output
    assert_close(out, gather_ref(x4, idx, 1), rtol=0, atol=0)
    x6 = rng.integers(-100, 100, size=(2, 2, 3, 2, 2, 3), dtype=np.int32)
    idx = np.array([2, 0, -1, 1], np.int32)
    out = run_single(engine, Gather("g", "x", "i", axis=5), {"x": x6}, data={"i": idx})
    np.testing.assert_array_equal(out, np.take(x6, idx, axis=5))


def test_gather_runtime_indices(engine, rng):
    """Indices computed on the device (an input), not only constants."""
    x = f32(rng.standard_normal((6, 3)))
    idx = rng.integers(-6, 6, size=(4,), dtype=np.int32)
    out = run_single(engine, Gather("g", "x", "i", axis=0), {"x": x, "i": idx})
    assert_close(out, gather_ref(x, idx, 0), rtol=0, atol=0)


def test_gather_padded_buffers(engine, rng):
    x = f32(rng.standard_normal((2, 19, 4, 5)))
    idx = rng.integers(-19, 19, size=(3,), dtype=np.int32)
    prim = Gather("g", "x", "i", axis=1)
    lin = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, x.shape, cl.Padding((1, 0, 1, 2), (1, 0, 2, 0)))
    lidx = cl.Layout(cl.DataType.i32, cl.Format.bfyx, idx.shape)
    lout = prim.calc_output_layout([lin, lidx]).with_(padding=cl.Padding((0, 1, 2, 1), (2, 0, 1, 3)))
    out = run_kernel_padded(engine, "gather", [lin, lidx], lout, prim.attrs(), [x, idx])
    assert_close(out, gather_ref(x, idx, 1), rtol=0, atol=0)


def test_gather_errors():
    f = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (3, 4))
    with pytest.raises(cl.ShapeError, match="axis"):
        Gather("g", "x", "i", axis=2).calc_output_layout([f, cl.Layout(cl.DataType.i32, cl.Format.bfyx, (2,))])
    with pytest.raises(cl.ShapeError, match="indices data type"):
        Gather("g", "x", "i", axis=0).calc_output_layout([f, f])
