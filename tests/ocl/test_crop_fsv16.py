"""crop_b_fs_yx_fsv16 vs numpy slicing: channel offsets that are multiples of 16 (whole-slice copies) and not
(lane gather), offsets along batch, y and x, channel tails, rows narrower than the pixel block; the node is checked
to run this kernel, its output poisoned first."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import f32

KERNEL = "crop_b_fs_yx_fsv16"

CASES = [
    # input shape, output shape, offsets
    ((1, 64, 5, 9), (1, 32, 5, 9), (0, 32, 0, 0)),    # YOLO C2f Split: aligned halves
    ((1, 64, 5, 9), (1, 32, 5, 9), (0, 0, 0, 0)),
    ((2, 40, 6, 7), (1, 21, 3, 4), (1, 8, 2, 3)),     # unaligned channels, every axis offset, a tail
    ((1, 144, 2, 3), (1, 80, 2, 3), (0, 64, 0, 0)),   # detection head: classes after 64 box channels
    ((1, 20, 4, 12), (1, 3, 4, 10), (0, 17, 0, 1)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}->{c[1]}@{c[2]}")
def test_crop_fsv16_matches_slicing(ocl_engine, rng, case):
    shape, out_shape, offs = case
    x = f32(rng.standard_normal(shape))
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape)),
                       cl.Reorder("xb", "x", format=cl.Format.b_fs_yx_fsv16),
                       cl.Crop("c", "xb", shape=out_shape, offsets=offs),
                       cl.Reorder("out", "c", format=cl.Format.bfyx))
    net = cl.Network(cl.Program(ocl_engine, topo, cl.BuildOptions(kernel_tier="cpu")))
    net.poison()
    out = net.run({"x": x})["out"]
    assert net.program.node("c").impl.kernel_name == KERNEL
    want = x[tuple(slice(o, o + s) for o, s in zip(offs, out_shape))]
    np.testing.assert_array_equal(out, want)
