"""reorder ``convert_mode`` (ONNX Cast): "truncate" (float -> integer toward zero, integer -> integer wraps like
numpy ``astype``), "bool" (non-zero -> 1), and the default "round" unchanged; with a format change too."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import run_single

DT = cl.DataType


def _values(rng, n: int = 240) -> np.ndarray:
    """Halves, near-halves, negatives and zeros: where rounding modes differ."""
    v = np.concatenate([np.arange(-6, 6, 0.5), rng.uniform(-100, 100, n - 24)])
    v[::17] = 0.0
    return v.astype(np.float32).reshape(2, 3, 5, 8)


@pytest.mark.parametrize("dtype", [DT.i32, DT.i8])
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.byxf])
def test_truncate_float_to_int(engine, rng, dtype, fmt):
    x = _values(rng)
    out = run_single(engine, cl.Reorder("r", "x", fmt, dtype, convert_mode="truncate"), {"x": x})
    expected = np.trunc(x.astype(np.float64))
    if dtype == DT.i8:
        expected = np.clip(expected, -128, 127)   # saturating, where C leaves it undefined
    np.testing.assert_array_equal(out.astype(np.float64), expected)


def test_truncate_int_to_narrower_wraps(engine, rng):
    x = rng.integers(-2**20, 2**20, size=(3, 4, 5), dtype=np.int32)
    out = run_single(engine, cl.Reorder("r", "x", cl.Format.bfyx, DT.u8, convert_mode="truncate"), {"x": x})
    np.testing.assert_array_equal(out, (x.astype(np.int64) % 256).astype(np.uint8))


def test_round_mode_unchanged(engine, rng):
    x = _values(rng)
    out = run_single(engine, cl.Reorder("r", "x", cl.Format.bfyx, DT.i32), {"x": x})
    np.testing.assert_array_equal(out, np.rint(x.astype(np.float64)))   # nearest even


@pytest.mark.parametrize("src", [np.float32, np.int32])
def test_bool_mode(engine, rng, src):
    x = _values(rng).astype(src) if src is np.int32 else _values(rng)
    out = run_single(engine, cl.Reorder("r", "x", cl.Format.bfyx, DT.u8, convert_mode="bool"), {"x": x})
    np.testing.assert_array_equal(out, (x != 0).astype(np.uint8))
    assert set(np.unique(out)) <= {0, 1}


def test_int_to_float_and_errors(engine, rng):
    x = rng.integers(-2**20, 2**20, size=(4, 6), dtype=np.int32)
    out = run_single(engine, cl.Reorder("r", "x", cl.Format.bfyx, DT.f32, convert_mode="truncate"), {"x": x})
    np.testing.assert_array_equal(out, x.astype(np.float32))
    with pytest.raises(cl.TopologyError, match="convert_mode"):
        cl.Reorder("r", "x", convert_mode="floor")


def test_bool_reorder_is_never_removed_as_redundant(engine, rng):
    """u8 -> u8 "bool" reorders keep their kernel through remove_redundant_reorders (alone and in a chain)."""
    x = rng.integers(0, 256, size=(2, 3, 4, 5), dtype=np.uint8)
    x[0, 0, 0, :2] = 0
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(DT.u8, cl.Format.bfyx, x.shape)))
    topo.add(cl.Reorder("b", "x", cl.Format.bfyx, DT.u8, convert_mode="bool"))
    topo.add(cl.Reorder("y", "b", cl.Format.byxf))
    topo.add(cl.Reorder("b2", "x", cl.Format.bfyx, DT.u8, convert_mode="bool"))
    topo.add(cl.Reorder("z", "b2", cl.Format.bfyx, DT.f32))
    outs = cl.Network(engine, topo).run({"x": x})
    np.testing.assert_array_equal(outs["y"], (x != 0).astype(np.uint8))
    np.testing.assert_array_equal(outs["z"], (x != 0).astype(np.float32))
