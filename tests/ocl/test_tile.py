"""tile vs numpy.tile: ranks 1-6, bfyx / b_fs_yx_fsv16 / byxf, padded buffers, integer data."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.primitives.tile import Tile
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_one_input_padded

CASES = [
    ((5,), (3,)),
    ((2, 3), (2, 1)),
    ((3, 2, 4), (1, 3, 2)),
    ((1, 19, 2, 3), (2, 2, 1, 3)),      # 19 features tiled to 38: crosses fsv16 slices
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}x{c[1]}")
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
def test_tile_matches_numpy(engine, rng, case, fmt):
    shape, reps = case
    x = f32(rng.standard_normal(shape))
    out = run_single(engine, Tile("t", "x", repeats=reps), {"x": x}, fmt=fmt)
    assert_close(out, np.tile(x.astype(np.float64), reps), rtol=0, atol=0)


def test_tile_rank5_6_and_int(engine, rng):
    x = f32(rng.standard_normal((2, 1, 3, 2, 2)))
    assert_close(run_single(engine, Tile("t", "x", repeats=(1, 3, 1, 2, 2)), {"x": x}),
                 np.tile(x.astype(np.float64), (1, 3, 1, 2, 2)), rtol=0, atol=0)
    x6 = rng.integers(-100, 100, size=(1, 2, 1, 2, 3, 1), dtype=np.int32)
    out = run_single(engine, Tile("t", "x", repeats=(2, 1, 3, 1, 1, 2)), {"x": x6})
    np.testing.assert_array_equal(out, np.tile(x6, (2, 1, 3, 1, 1, 2)))


def test_tile_padded_buffers(engine, rng):
    shape, reps = (2, 5, 3, 4), (1, 2, 2, 1)
    x = f32(rng.standard_normal(shape))
    prim = Tile("t", "x", repeats=reps)
    out = run_one_input_padded(engine, prim, x, cl.Format.byxf,
                               cl.Padding((0, 3, 2, 0), (1, 0, 1, 2)), cl.Padding((1, 2, 0, 1), (0, 1, 1, 0)))
    assert_close(out, np.tile(x.astype(np.float64), reps), rtol=0, atol=0)


def test_tile_errors():
    with pytest.raises(cl.TopologyError, match="positive"):
        Tile("t", "x", repeats=(0, 1))
    with pytest.raises(cl.ShapeError, match="input rank"):
        Tile("t", "x", repeats=(2,)).calc_output_layout([cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 2))])
