"""gather_rows (OpenCL, CPU tier) and gather_cpu_rows (CPU engine): Gather of contiguous rows on unpadded bfyx,
chosen unforced, against numpy.take on poisoned outputs: a q / k / v split, an embedding lookup with negative
indices, rows off the vector grid and longer than one chunk, run-time indices, int32 data; rows shorter than a vector
stay with the reference."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.primitives.gather import Gather
from tests.helpers import cpu_tier, f32

KERNEL = {"ocl": ("gather_rows", "gather_ref"), "cpu": ("gather_cpu_rows", "gather_cpu_ref")}

CASES = [
    # data shape, indices (None: a scalar index 1), axis
    ((3, 1, 3, 197, 64), None, 0),                     # ViT: q / k / v = Gather(qkv, 1, axis 0)
    ((100, 24), np.array([[3, -1, 50], [99, 0, -100]]), 0),  # embedding lookup, negative indices
    ((2, 7, 3, 9), np.array([6, -7, 2, 2]), 1),        # rows of 27: three vectors and a tail
    ((2, 3, 1100), np.array([2, 0]), 1),               # rows of 1100: three chunks
]


def _net(engine, x, idx, axis, runtime=False):
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.from_numpy(x.dtype), cl.Format.bfyx, x.shape)))
    scalar = idx is None
    i = np.array([1], np.int32) if scalar else idx.astype(np.int32)
    if runtime:
        topo.add(cl.InputLayout("i", cl.Layout(cl.DataType.i32, cl.Format.bfyx, i.shape)))
    else:
        topo.add(cl.Data("i", i))
    topo.add(Gather("g", "x", "i", axis=axis, scalar_index=scalar))
    net = cl.Network(cl.Program(engine, topo, cpu_tier()))
    net.poison()
    return net, i


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}@{c[2]}")
def test_rows_match_numpy(engine, rng, case):
    shape, idx, axis = case
    x = f32(rng.standard_normal(shape))
    net, i = _net(engine, x, idx, axis)
    assert net.program.node("g").impl.kernel_name == KERNEL[engine.kind][0]
    expect = np.take(x, 1, axis=axis) if idx is None else np.take(x, i, axis=axis)
    np.testing.assert_array_equal(net.run({"x": x})["g"], expect)


def test_rows_runtime_indices_and_int32(engine, rng):
    x = rng.integers(-2**31, 2**31 - 1, (5, 4, 16), dtype=np.int64).astype(np.int32)
    idx = rng.integers(-4, 4, (3, 2)).astype(np.int32)
    net, i = _net(engine, x, idx, 1, runtime=True)
    assert net.program.node("g").impl.kernel_name == KERNEL[engine.kind][0]
    np.testing.assert_array_equal(net.run({"x": x, "i": idx})["g"], np.take(x, idx, axis=1))


def test_short_rows_stay_with_the_reference(engine, rng):
    x = f32(rng.standard_normal((4, 6, 5)))
    net, _ = _net(engine, x, np.array([1, 3]), 1)
    assert net.program.node("g").impl.kernel_name == KERNEL[engine.kind][1]
