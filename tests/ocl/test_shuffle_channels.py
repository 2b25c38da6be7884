"""ShuffleChannels (both engines) vs explicit channel indexing on fresh data, bfyx and blocked inputs, poisoned
outputs, and its errors. The pass that creates it from ONNX's chain: tests/passes/test_fold_channel_shuffle.py."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.errors import ShapeError, TopologyError
from tests.helpers import f32


def shuffle_ref(x: np.ndarray, g: int) -> np.ndarray:
    """Channel shuffle by explicit indexing: y[:, c] = x[:, (c % g) * (C / g) + c // g]."""
    c = x.shape[1]
    return np.stack([x[:, (k % g) * (c // g) + k // g] for k in range(c)], axis=1)


@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16])
@pytest.mark.parametrize("shape, group", [((1, 12, 5, 3), 3), ((2, 40, 4, 4), 4), ((1, 34, 2, 7), 2)])
def test_shuffle_channels_matches_reference(engine, rng, fmt, shape, group):
    x = f32(rng.standard_normal(shape))
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape)),
                       cl.Reorder("xr", "x", format=fmt), cl.ShuffleChannels("s", "xr", group=group),
                       cl.Reorder("out", "s", format=cl.Format.bfyx))
    net = cl.Network(cl.Program(engine, topo))
    net.poison()
    np.testing.assert_array_equal(net.run({"x": x})["out"], shuffle_ref(x, group))


def test_shuffle_channels_errors():
    with pytest.raises(TopologyError, match="'s'.*group"):
        cl.ShuffleChannels("s", "x", group=0)
    prim = cl.ShuffleChannels("s", "x", group=3)
    with pytest.raises(ShapeError, match="'s'"):
        prim.calc_output_layout([cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 10, 2, 2))])
