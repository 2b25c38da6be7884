"""reduce vs a float64 numpy reference: every mode, axis sets (negative, all, several), keep_dims on/off, ranks 1-6,
bfyx plus byxf / b_fs_yx_fsv16 inputs, padded buffers, NaN propagation."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.primitives.reduce import Reduce
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_kernel_padded
from tests.references import reduce_ref

CASES = [
    # shape, axes, keep_dims
    ((2, 7, 5, 6), (2, 3), True),          # global pooling over y, x
    ((2, 19, 4, 3), (1,), False),          # over the features (crosses fsv16 slices)
    ((3, 4, 5, 2), (0, 2), True),
    ((3, 4, 5, 2), (-1, -3), False),       # negative axes
    ((2, 3, 4, 5), (), True),              # every axis, kept
    ((2, 3, 4, 5), (), False),             # every axis, rank-0 result stored as (1,)
    ((17,), (0,), False),                  # rank 1
    ((6, 9), (1,), True),                  # rank 2
    ((3, 2, 7), (0,), False),              # rank 3
    ((2, 3, 2, 4, 3), (3,), True),         # rank 5
    ((2, 3, 2, 2, 3, 4), (1, 4), False),   # rank 6
    ((2, 3, 2, 2, 3, 4), (5, 2, 0), True),
]
MODES = ["mean", "sum", "max", "min", "prod"]
_OTHER = [cl.Format.byxf, cl.Format.b_fs_yx_fsv16]
PARAMS = []
for i, (shape, axes, keep) in enumerate(CASES):
    mode = MODES[i % len(MODES)]
    fmt = _OTHER[i % 2] if len(shape) <= 4 else cl.Format.bfyx
    PARAMS.append((shape, axes, keep, mode, fmt))
    PARAMS.append((shape, axes, keep, MODES[(i + 1) % len(MODES)], cl.Format.bfyx))


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize(("shape", "axes", "keep", "mode", "fmt"), PARAMS,
                         ids=[f"{p[0]}-ax{p[1]}-keep{int(p[2])}-{p[3]}-{p[4].value}" for p in PARAMS])
def test_reduce_matches_reference(engine, rng, shape, axes, keep, mode, fmt):
    x = f32(rng.standard_normal(shape) * 3 + 0.5)
    if mode == "prod":   # factors near 1 in size, random signs: no overflow over up to 144 elements
        x = f32(rng.uniform(0.7, 1.4, shape) * rng.choice([-1.0, 1.0], shape))
    out = run_single(engine, Reduce("r", "x", mode=mode, axes=axes, keep_dims=keep), {"x": x}, fmt=fmt)
    assert_close(out, reduce_ref(x, mode, axes, keep), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", ["max", "min"])
def test_reduce_max_min_propagate_nan(engine, rng, mode):
    """As numpy: one NaN in a reduced row makes the result NaN; rows without NaN are exact."""
    x = f32(rng.standard_normal((3, 5, 4)))
    x[1, 2, 3] = np.nan
    out = run_single(engine, Reduce("r", "x", mode=mode, axes=(1,), keep_dims=False), {"x": x})
    ref = reduce_ref(x, mode, (1,), False)
    assert np.isnan(out[1, 3]) and np.isnan(ref[1, 3])
    mask = ~np.isnan(ref)
    np.testing.assert_array_equal(out[mask], ref[mask].astype(np.float32))


@pytest.mark.parametrize(("mode", "axes", "keep"), [("mean", (1, 3), True), ("max", (0, 2), False)])
def test_reduce_padded_buffers(engine, rng, mode, axes, keep):
    """Padded blocked input, padded byxf output: reads and writes go through GET_INDEX only."""
    shape = (2, 19, 4, 3)
    lin = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((1, 0, 2, 1), (0, 0, 1, 2)))
    oshape = Reduce("r", "x", mode=mode, axes=axes, keep_dims=keep).calc_output_layout([lin]).shape
    lout = cl.Layout(cl.DataType.f32, cl.Format.byxf, oshape, cl.Padding((0, 2, 1, 0), (1, 1, 0, 3)))
    x = f32(rng.standard_normal(shape) * 2)
    out = run_kernel_padded(engine, "reduce", [lin], lout, {"mode": mode, "axes": axes, "keep_dims": keep}, [x])
    assert_close(out, reduce_ref(x, mode, axes, keep), rtol=1e-4, atol=1e-5)


def test_reduce_output_layout_and_errors():
    lay = cl.Layout(cl.DataType.f32, cl.Format.byxf, (2, 3, 4, 5))
    assert Reduce("r", "x", axes=(1, -1)).calc_output_layout([lay]).shape == (2, 1, 4, 1)
    assert Reduce("r", "x", axes=(1, -1), keep_dims=False).calc_output_layout([lay]).shape == (2, 4)
    assert Reduce("r", "x", keep_dims=False).calc_output_layout([lay]).shape == (1,)
    assert Reduce("r", "x").calc_output_layout([lay]).format == cl.Format.bfyx
    with pytest.raises(cl.errors.ShapeError, match="out of range"):
        Reduce("r", "x", axes=(4,)).calc_output_layout([lay])
    with pytest.raises(cl.errors.ShapeError, match="twice"):
        Reduce("r", "x", axes=(1, -3)).calc_output_layout([lay])
    with pytest.raises(cl.errors.TopologyError, match="mode"):
        Reduce("r", "x", mode="median")
