"""scatter vs numpy: every reduction with repeated offsets (none: the last wins), f32 and i32, updates of another
shape than the indices (same count), offsets outside the data ignored, byxf / fsv16 data, padded buffers, errors."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.primitives.scatter import Scatter
from tests.helpers import run_single
from tests.ocl.padded import run_kernel_padded


def scatter_ref(data, flat, upd, reduction):
    """A float64 / int64 loop over the updates in row-major order (an independent form of the definition)."""
    out = data.astype(np.float64 if data.dtype.kind == "f" else np.int64).reshape(-1).copy()
    for i, v in zip(flat.reshape(-1), upd.reshape(-1)):
        if not 0 <= i < out.size:
            continue
        out[i] = {"none": v, "add": out[i] + v, "mul": out[i] * v, "max": max(out[i], v),
                  "min": min(out[i], v)}[reduction]
    return out.reshape(data.shape)


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.byxf, cl.Format.b_fs_yx_fsv16], ids=str)
def test_scatter_matches_loop(engine, rng, reduction, fmt):
    data = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    flat = rng.integers(0, data.size, (6, 5)).astype(np.int32)
    flat[0, :3] = 7                         # repeated offsets
    flat[1, 0] = data.size + 3              # outside: ignored
    upd = rng.standard_normal((30,)).astype(np.float32)
    out = run_single(engine, Scatter("s", "d", "i", "u", reduction=reduction), {"d": data, "i": flat, "u": upd},
                     fmt=fmt)
    np.testing.assert_allclose(out, scatter_ref(data, flat, upd, reduction), rtol=1e-6, atol=1e-6)


def test_scatter_int32_exact(engine, rng):
    data = rng.integers(-2**30, 2**30, (4, 7)).astype(np.int32)
    flat = rng.integers(0, 28, (10,)).astype(np.int32)
    upd = rng.integers(-2**30, 2**30, (10,)).astype(np.int32)
    for red in ("none", "max"):
        out = run_single(engine, Scatter("s", "d", "i", "u", reduction=red), {"d": data, "i": flat, "u": upd})
        assert out.dtype == np.int32
        np.testing.assert_array_equal(out, scatter_ref(data, flat, upd, red))


def test_scatter_padded_buffers(engine, rng):
    shape = (2, 19, 3, 4)
    data = rng.standard_normal(shape).astype(np.float32)
    flat = rng.integers(0, data.size, (1, 3, 4, 1)).astype(np.int32)
    upd = rng.standard_normal((1, 1, 3, 4)).astype(np.float32)
    ld = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((1, 0, 2, 1), (0, 0, 1, 2)))
    li = cl.Layout(cl.DataType.i32, cl.Format.bfyx, (1, 3, 4, 1), cl.Padding((0, 0, 0, 1), (0, 0, 1, 0)))
    lu = cl.Layout(cl.DataType.f32, cl.Format.byxf, (1, 1, 3, 4), cl.Padding((0, 1, 0, 0), (0, 0, 0, 2)))
    lo = cl.Layout(cl.DataType.f32, cl.Format.byxf, shape, cl.Padding((0, 2, 1, 0), (1, 1, 0, 3)))
    out = run_kernel_padded(engine, "scatter", [ld, li, lu], lo, {"reduction": "add"}, [data, flat, upd])
    np.testing.assert_allclose(out, scatter_ref(data, flat, upd, "add"), rtol=1e-6, atol=1e-6)


def test_scatter_layout_and_errors():
    d = cl.Layout(cl.DataType.f32, cl.Format.byxf, (2, 3))
    i = cl.Layout(cl.DataType.i32, cl.Format.bfyx, (4,))
    u = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 2))
    out = Scatter("s", "d", "i", "u").calc_output_layout([d, i, u])
    assert out.shape == (2, 3) and out.format == cl.Format.bfyx
    with pytest.raises(cl.ShapeError, match="element count"):
        Scatter("s", "d", "i", "u").calc_output_layout([d, i, cl.Layout(cl.DataType.f32, cl.Format.bfyx, (3,))])
    with pytest.raises(cl.ShapeError, match="indices data type"):
        Scatter("s", "d", "i", "u").calc_output_layout([d, u, u])
    with pytest.raises(cl.TopologyError, match="reduction"):
        Scatter("s", "d", "i", "u", reduction="mean")
