"""top_k vs numpy's stable argsort: values and indices, largest and smallest, every axis (negative too), k from 1
to the axis size, ties, NaN, i32 input, byxf / b_fs_yx_fsv16 inputs, padded buffers, output layout and errors."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.primitives.top_k import TopK
from tests.helpers import run_single
from tests.ocl.padded import run_kernel_padded


def topk_ref(x, axis, k, largest):
    """numpy's stable argsort (of -x for largest: -NaN is NaN, sorted last), the first k: (values, indices)."""
    key = -x.astype(np.float64) if largest else x.astype(np.float64)
    idx = np.take(np.argsort(key, axis=axis, kind="stable"), np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx


CASES = [
    # shape, axis, k, largest, input format
    ((2, 7, 3, 4), 1, 3, True, cl.Format.bfyx),
    ((2, 7, 3, 4), -1, 4, False, cl.Format.byxf),
    ((2, 19, 3, 4), 1, 19, True, cl.Format.b_fs_yx_fsv16),
    ((9,), 0, 2, True, cl.Format.bfyx),
    ((2, 3, 2, 3, 5), 3, 2, False, cl.Format.bfyx),
    ((3, 11), 1, 1, True, cl.Format.bfyx),
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("output", ["values", "indices"])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_top_k_matches_numpy(engine, rng, case, output):
    shape, axis, k, largest, fmt = case
    x = (rng.integers(-4, 5, shape) * 0.5).astype(np.float32)   # ties are common
    out = run_single(engine, TopK("t", "x", axis=axis, k=k, largest=largest, output=output), {"x": x}, fmt=fmt)
    values, idx = topk_ref(x, axis % x.ndim, k, largest)
    np.testing.assert_array_equal(out, values if output == "values" else idx)


@pytest.mark.parametrize("largest", [True, False])
def test_top_k_nan_last_and_int32(engine, rng, largest):
    x = rng.standard_normal((3, 6)).astype(np.float32)
    x[0, [1, 4]] = np.nan
    for output in ("values", "indices"):
        out = run_single(engine, TopK("t", "x", axis=1, k=6, largest=largest, output=output), {"x": x})
        ref = topk_ref(x, 1, 6, largest)[0 if output == "values" else 1]
        np.testing.assert_array_equal(out, ref)
    xi = rng.integers(-2**30, 2**30, (4, 5)).astype(np.int32)    # beyond float32's exact integers
    out = run_single(engine, TopK("t", "x", axis=0, k=2, largest=largest), {"x": xi})
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, topk_ref(xi, 0, 2, largest)[0])


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast")  # padded.py fills i32 with NaN
@pytest.mark.parametrize("output", ["values", "indices"])
def test_top_k_padded_buffers(engine, rng, output):
    """Padded blocked input, padded byxf output: reads and writes go through GET_INDEX only (padded.py poisons the
    padding and checks it stays unwritten)."""
    shape = (2, 19, 3, 4)
    x = rng.standard_normal(shape).astype(np.float32)
    lin = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((1, 0, 2, 1), (0, 0, 1, 2)))
    dt = cl.DataType.f32 if output == "values" else cl.DataType.i32
    lout = cl.Layout(dt, cl.Format.byxf, (2, 5, 3, 4), cl.Padding((0, 2, 1, 0), (1, 1, 0, 3)))
    attrs = {"axis": 1, "k": 5, "largest": True, "output": output}
    out = run_kernel_padded(engine, "top_k", [lin], lout, attrs, [x])
    np.testing.assert_array_equal(out, topk_ref(x, 1, 5, True)[0 if output == "values" else 1])


def test_top_k_output_layout_and_errors():
    lay = cl.Layout(cl.DataType.f32, cl.Format.byxf, (2, 3, 4, 5))
    out = TopK("t", "x", axis=-2, k=3).calc_output_layout([lay])
    assert out.shape == (2, 3, 3, 5) and out.dtype == cl.DataType.f32 and out.format == cl.Format.bfyx
    assert TopK("t", "x", axis=1, k=2, output="indices").calc_output_layout([lay]).dtype == cl.DataType.i32
    with pytest.raises(cl.ShapeError, match="k"):
        TopK("t", "x", axis=1, k=4).calc_output_layout([lay])
    with pytest.raises(cl.ShapeError, match="axis"):
        TopK("t", "x", axis=4, k=1).calc_output_layout([lay])
    with pytest.raises(cl.TopologyError, match="output"):
        TopK("t", "x", output="both")
    with pytest.raises(cl.TopologyError, match="k must be"):
        TopK("t", "x", k=0)
