"""fold_channel_shuffle: ONNX's Reshape -> Transpose -> Reshape channel shuffle becomes one shuffle_channels node
with the same result (vs explicit channel indexing in float64); chains that are not a shuffle, or whose middle is an
output, stay as they are."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.passes.fold_channel_shuffle import shuffle_group
from tests.helpers import assert_close, f32


def shuffle_ref(x: np.ndarray, g: int) -> np.ndarray:
    """Channel shuffle by explicit indexing: y[:, c] = x[:, (c % g) * (C / g) + c // g]."""
    c = x.shape[1]
    return np.stack([x[:, (k % g) * (c // g) + k // g] for k in range(c)], axis=1)


def test_shuffle_group_detects_only_shuffles():
    c, g = 12, 3
    perm = (np.arange(c) % g) * (c // g) + np.arange(c) // g
    assert shuffle_group(perm) == 3
    assert shuffle_group(np.arange(c)) is None
    assert shuffle_group(perm[::-1].copy()) is None


def _shuffle_net(engine, x, g, order=(0, 2, 1, 3, 4), output_mid=False):
    """conv -> Reshape (N, G, C/G, H, W) -> Permute(order) -> Reshape (N, C, H, W) -> conv (1x1)."""
    n, c, h, w = x.shape
    w1 = f32(np.eye(c).reshape(c, c, 1, 1) + 0.01)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)), cl.Data("w", w1),
                       cl.Convolution("c1", "x", weights="w"),
                       cl.Reshape("r1", "c1", shape=(n, g, c // g, h, w)), cl.Permute("p", "r1", order=order))
    shp = tuple((n, g, c // g, h, w)[i] for i in order)
    topo.add(cl.Reshape("r2", "p", shape=(n, int(np.prod(shp[1:3])), shp[3], shp[4])),
             cl.Convolution("c2", "r2", weights="w"))
    outs = ["c2", "p"] if output_mid else ["c2"]
    net = cl.Network(cl.Program(engine, topo, cl.BuildOptions(outputs=outs)))
    net.poison()
    return net, net.run({"x": x})


def test_fold_channel_shuffle_pass(engine, rng):
    """The chain folds into one shuffle_channels node ('r2' keeps its id) and the result is unchanged."""
    x = f32(rng.standard_normal((1, 48, 5, 6)))
    net, out = _shuffle_net(engine, x, 4)
    r2 = net.program.node("r2")  # on the OpenCL engine fused into c1's stores (fuse_shuffle_into_stores)
    assert r2.kind == "shuffle_channels" or [op.kind for op in r2.fused_ops] == ["shuffle_channels"]
    w1 = np.eye(48) + 0.01
    y1 = np.einsum("oc,nchw->nohw", w1, x.astype(np.float64))
    expect = np.einsum("oc,nchw->nohw", w1, shuffle_ref(y1, 4))
    assert_close(out["c2"], expect, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", ["not a shuffle", "middle is an output"])
def test_chains_that_stay(engine, rng, case):
    """A permute that moves H (not a channel permutation) or an intermediate asked for as an output: no fold."""
    x = f32(rng.standard_normal((1, 16, 4, 4)))
    if case == "not a shuffle":
        net, out = _shuffle_net(engine, x, 4, order=(0, 1, 3, 2, 4))
    else:
        net, out = _shuffle_net(engine, x, 4, output_mid=True)
        np.testing.assert_allclose(out["p"].shape, (1, 4, 4, 4, 4))
    assert net.program.node("r2").kind == "reshape"
