"""arg_max vs numpy.argmax / argmin: every axis (negative too), keep_dims on/off, select_last_index with ties,
ranks 1-6, bfyx plus byxf / b_fs_yx_fsv16 inputs, padded buffers, NaN handling."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.primitives.arg_max import ArgMax
from tests.helpers import f32, run_single
from tests.ocl.padded import run_kernel_padded


def arg_ref(x, axis, keep_dims, last, mode="max"):
    """numpy.argmax/argmin along ``axis``; ``last`` picks the last of tied extremes (flip, arg, mirror, as in
    ONNX's reference ArgMax). A rank-0 result is returned with shape (1,)."""
    fn = np.argmax if mode == "max" else np.argmin
    if last:
        x = np.flip(x, axis)
        out = x.shape[axis] - fn(x, axis=axis) - 1
    else:
        out = fn(x, axis=axis)
    if keep_dims:
        out = np.expand_dims(out, axis)
    return np.asarray(out).reshape(1) if np.ndim(out) == 0 else out


CASES = [
    # shape, axis, keep_dims, select_last_index, mode
    ((2, 19, 4, 3), 1, True, False, "max"),      # across fsv16 slices
    ((2, 19, 4, 3), 1, False, True, "max"),
    ((3, 4, 5, 2), -1, True, True, "max"),
    ((3, 4, 5, 2), 0, False, False, "min"),
    ((3, 4, 5, 2), 2, True, True, "min"),
    ((13,), 0, False, True, "max"),              # rank 1 → shape (1,)
    ((5, 8), -2, False, False, "max"),
    ((2, 3, 6), 2, True, False, "max"),
    ((2, 3, 2, 4, 3), 3, False, True, "max"),    # rank 5
    ((2, 3, 2, 2, 3, 4), 4, True, False, "max"),  # rank 6
    ((2, 3, 2, 2, 3, 4), -1, False, True, "min"),
]
_OTHER = [cl.Format.byxf, cl.Format.b_fs_yx_fsv16]
PARAMS = [(c, (_OTHER[i % 2] if len(c[0]) <= 4 and i % 3 != 2 else cl.Format.bfyx)) for i, c in enumerate(CASES)]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize(("case", "fmt"), PARAMS, ids=[f"{c[0]}-ax{c[1]}-keep{int(c[2])}-last{int(c[3])}-{c[4]}-"
                                                       f"{f.value}" for c, f in PARAMS])
def test_arg_max_matches_numpy(engine, rng, case, fmt):
    shape, axis, keep, last, mode = case
    x = f32(rng.integers(-3, 4, size=shape) + rng.choice([0.0, 0.5], size=shape))  # many ties
    out = run_single(engine, ArgMax("a", "x", axis=axis, keep_dims=keep, select_last_index=last, mode=mode),
                     {"x": x}, fmt=fmt)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, arg_ref(x, axis % len(shape), keep, last, mode))


@pytest.mark.parametrize("last", [False, True])
def test_arg_max_nan_wins(engine, rng, last):
    """As numpy.argmax: a NaN is the maximum; with several NaNs the first (or last) one is chosen."""
    x = f32(rng.standard_normal((4, 6)))
    x[1, 2] = x[1, 4] = np.nan
    x[2, 0] = np.nan
    out = run_single(engine, ArgMax("a", "x", axis=1, keep_dims=False, select_last_index=last), {"x": x})
    np.testing.assert_array_equal(out, arg_ref(x, 1, False, last))


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast")  # padded.py fills i32 with NaN
@pytest.mark.parametrize("axis", [1, 3])
def test_arg_max_padded_buffers(engine, rng, axis):
    """Padded blocked input, padded byxf i32 output: reads and writes go through GET_INDEX only."""
    shape = (2, 19, 4, 3)
    lin = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((1, 0, 2, 1), (0, 0, 1, 2)))
    oshape = tuple(1 if i == axis else s for i, s in enumerate(shape))
    lout = cl.Layout(cl.DataType.i32, cl.Format.byxf, oshape, cl.Padding((0, 2, 1, 0), (1, 1, 0, 3)))
    x = f32(rng.standard_normal(shape))
    attrs = {"axis": axis, "keep_dims": True, "select_last_index": False, "mode": "max"}
    out = run_kernel_padded(engine, "arg_max", [lin], lout, attrs, [x])
    np.testing.assert_array_equal(out, arg_ref(x, axis, True, False))


def test_arg_max_output_layout_and_errors():
    lay = cl.Layout(cl.DataType.f32, cl.Format.byxf, (2, 3, 4, 5))
    out = ArgMax("a", "x", axis=-2).calc_output_layout([lay])
    assert (out.shape, out.dtype, out.format) == ((2, 3, 1, 5), cl.DataType.i32, cl.Format.bfyx)
    assert ArgMax("a", "x", axis=0, keep_dims=False).calc_output_layout([lay]).shape == (3, 4, 5)
    with pytest.raises(cl.errors.ShapeError, match="axis"):
        ArgMax("a", "x", axis=4).calc_output_layout([lay])
    with pytest.raises(cl.errors.TopologyError, match="mode"):
        ArgMax("a", "x", mode="median")
