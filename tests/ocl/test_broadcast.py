"""broadcast vs numpy.broadcast_to: rank growth, size-1 dimensions, ranks up to 6, bfyx / b_fs_yx_fsv16 / byxf,
padded buffers, integer data."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.primitives.broadcast import Broadcast
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_one_input_padded

CASES = [
    ((1,), (7,)),
    ((3, 1), (3, 5)),
    ((4,), (2, 3, 4)),
    ((1, 19, 1, 1), (2, 19, 3, 4)),       # per-channel vector stretched over fsv16 slices
    ((2, 1, 3, 1), (2, 5, 3, 4)),
    ((5, 1), (2, 3, 5, 6)),
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}->{c[1]}")
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
def test_broadcast_matches_numpy(engine, rng, case, fmt):
    shape, target = case
    x = f32(rng.standard_normal(shape))
    out = run_single(engine, Broadcast("b", "x", shape=target), {"x": x}, fmt=fmt)
    assert_close(out, np.broadcast_to(x.astype(np.float64), target), rtol=0, atol=0)


def test_broadcast_rank5_6_and_int(engine, rng):
    x = f32(rng.standard_normal((3, 1, 2)))
    assert_close(run_single(engine, Broadcast("b", "x", shape=(2, 2, 3, 4, 2)), {"x": x}),
                 np.broadcast_to(x.astype(np.float64), (2, 2, 3, 4, 2)), rtol=0, atol=0)
    xi = rng.integers(-100, 100, size=(2, 1, 3, 1, 2, 1), dtype=np.int32)
    out = run_single(engine, Broadcast("b", "x", shape=(2, 3, 3, 2, 2, 2)), {"x": xi})
    np.testing.assert_array_equal(out, np.broadcast_to(xi, (2, 3, 3, 2, 2, 2)))


def test_broadcast_padded_buffers(engine, rng):
    x = f32(rng.standard_normal((1, 19, 1, 3)))
    prim = Broadcast("b", "x", shape=(2, 19, 4, 3))
    out = run_one_input_padded(engine, prim, x, cl.Format.b_fs_yx_fsv16,
                               cl.Padding((1, 0, 1, 2), (1, 0, 2, 0)), cl.Padding((2, 0, 0, 1), (0, 0, 1, 2)))
    assert_close(out, np.broadcast_to(x.astype(np.float64), (2, 19, 4, 3)), rtol=0, atol=0)


def test_broadcast_errors():
    with pytest.raises(cl.ShapeError, match="broadcast 'b'"):
        Broadcast("b", "x", shape=(3, 4)).calc_output_layout([cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 4))])
    with pytest.raises(cl.TopologyError, match="rank 1-6"):
        Broadcast("b", "x", shape=(1,) * 7)
