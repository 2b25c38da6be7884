"""reshape vs numpy.reshape: ranks 1-4 in and out, -1 inference, bfyx/b_fs_yx_fsv16/byxf and padded inputs, i32."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_one_input_padded


def reshape_ref(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The row-major (C order) reshape in float64; -1 is inferred by numpy."""
    return np.reshape(x.astype(np.float64), shape, order="C")


CASES = [
    # input shape, new shape
    ((2, 6), (3, 4)),
    ((2, 6), (1, 3, 2, 2)),
    ((3, 5, 4), (5, 12)),
    ((3, 5, 4), (2, -1, 5)),
    ((2, 19, 3, 2), (2, 19, 6)),        # 19 features: a partial fsv16 slice in the input
    ((2, 18, 3, 5), (-1, 9, 5)),
    ((1, 20, 2, 3), (4, 5, 3, 2)),
    ((2, 3, 4, 5), (120,)),
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}->{c[1]}")
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
def test_reshape_matches_numpy(engine, rng, case, fmt):
    shape, new_shape = case
    x = f32(rng.standard_normal(shape))
    out = run_single(engine, cl.Reshape("r", "x", shape=new_shape), {"x": x}, fmt=fmt)
    assert_close(out, reshape_ref(x, new_shape), rtol=0, atol=0)


PADDED = [
    (cl.Format.bfyx, cl.Padding((1, 2, 1, 3), (0, 1, 2, 1))),
    (cl.Format.byxf, cl.Padding((0, 3, 2, 0), (1, 0, 1, 2))),
    (cl.Format.b_fs_yx_fsv16, cl.Padding((1, 0, 1, 2), (1, 0, 2, 0))),
]
OUT_PAD = cl.Padding((1, 0, 2, 1), (0, 2, 1, 3))


@pytest.mark.parametrize("fmt,pad", PADDED, ids=lambda v: getattr(v, "value", None) or "pad")
@pytest.mark.parametrize("case", [((3, 17, 2, 3), (3, -1)), ((6, 5), (2, 3, 5))], ids=str)
def test_reshape_padded_buffers(engine, rng, fmt, pad, case):
    """NaN-filled input padding is never read; the padded bfyx output is written only in its interior."""
    shape, new_shape = case
    x = f32(rng.standard_normal(shape))
    prim = cl.Reshape("r", "x", shape=new_shape)
    out = run_one_input_padded(engine, prim, x, fmt, pad, OUT_PAD)
    assert_close(out, reshape_ref(x, new_shape), rtol=0, atol=0)


def test_reshape_int32_exact(engine, rng):
    x = rng.integers(-2**30, 2**30, size=(2, 3, 4, 5), dtype=np.int32)
    out = run_single(engine, cl.Reshape("r", "x", shape=(4, 30)), {"x": x}, fmt=cl.Format.byxf)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, x.reshape(4, 30))


def test_reshape_output_layout_is_bfyx(engine, rng):
    x = f32(rng.standard_normal((1, 20, 2, 2)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("h", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
    topo.add(cl.Reorder("x", "h", cl.Format.b_fs_yx_fsv16))
    topo.add(cl.Reshape("r", "x", shape=(4, -1)))
    net = cl.Network(cl.Program(engine, topo))
    assert net.get_output_layout("r") == cl.Layout(cl.DataType.f32, cl.Format.bfyx, (4, 20))
