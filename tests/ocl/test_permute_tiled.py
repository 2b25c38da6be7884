"""permute_tiled (OpenCL, CPU tier) and permute_cpu_copy (CPU engine): transposes of unpadded bfyx data, chosen
unforced, against numpy's transpose on poisoned outputs: inner runs kept (attention head splits), 8x8 tiles with
partial edges (the last two axes swapped, a (C, HW) → (HW, C) patch flatten), merged and size-1 axes, ranks 1-6,
int32 bits; and the plan."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from kernel_selector.common.permute_plan import collapse
from tests.helpers import cpu_tier, f32

KERNEL = {"ocl": "permute_tiled", "cpu": "permute_cpu_copy"}

CASES = [
    ((197, 9, 64), (1, 0, 2)),              # ViT q/k/v split: runs of 64
    ((1, 197, 3, 3, 64), (2, 0, 3, 1, 4)),  # the same, as exported (rank 5, size-1 axis)
    ((3, 197, 64), (0, 2, 1)),              # kᵀ: tiles with a partial edge (197 = 24·8 + 5)
    ((192, 196), (1, 0)),                   # patch embedding (C, HW) → (HW, C)
    ((2, 5, 3, 7), (0, 2, 3, 1)),           # NCHW → NHWC, every tile partial
    ((2, 3, 4, 5, 6, 2), (5, 3, 1, 0, 4, 2)),
    ((5, 6, 13), (1, 0, 2)),                # runs of 13: one vector and a tail
    ((1000,), (0,)),                        # identity: one run, two chunks
    ((4, 1, 3), (1, 2, 0)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_tiled_matches_numpy(engine, rng, case):
    shape, order = case
    x = f32(rng.standard_normal(shape))
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape)),
                       cl.Permute("p", "x", order=order))
    net = cl.Network(cl.Program(engine, topo, cpu_tier()))
    assert net.program.node("p").impl.kernel_name == KERNEL[engine.kind]
    net.poison()
    np.testing.assert_array_equal(net.run({"x": x})["p"], x.transpose(order))


def test_tiled_copies_int32_bits(engine, rng):
    x = rng.integers(-2**31, 2**31 - 1, (3, 17, 11), dtype=np.int64).astype(np.int32)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.i32, cl.Format.bfyx, x.shape)),
                       cl.Permute("p", "x", order=(2, 0, 1)))
    net = cl.Network(cl.Program(engine, topo, cpu_tier()))
    assert net.program.node("p").impl.kernel_name == KERNEL[engine.kind]
    net.poison()
    np.testing.assert_array_equal(net.run({"x": x})["p"], x.transpose(2, 0, 1))


def test_collapse_keeps_the_data_movement(rng):
    """Random shapes (sizes 1-3, ranks 1-6) and orders: the collapsed permute moves every element where the original
    does, and has no size-1 axis and no two input-neighbour axes kept together."""
    for _ in range(500):
        r = int(rng.integers(1, 7))
        shape = tuple(int(v) for v in rng.integers(1, 4, r))
        order = tuple(int(v) for v in rng.permutation(r))
        s, o = collapse(shape, order)
        x = np.arange(int(np.prod(shape))).reshape(shape)
        np.testing.assert_array_equal(x.transpose(order).reshape(-1), x.reshape(s).transpose(o).reshape(-1))
        assert len(s) == 1 or (1 not in s and all(o[k] + 1 != o[k + 1] for k in range(len(o) - 1)))
    assert collapse((1, 197, 3, 3, 64), (2, 0, 3, 1, 4)) == ((197, 9, 64), (1, 0, 2))
