"""prepare_padding: the producer of a blocked convolution's input gets the halo as output padding; the
convolution then reads without bounds checks; results equal the unoptimized build."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.passes.prepare_padding import halo


def _net(rng, c=16):
    f = np.float32
    return cl.Topology(
        cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, c, 9, 9))),
        cl.Data("w1", (rng.standard_normal((c, c, 3, 3)) * 0.2).astype(f)),
        cl.Data("w2", (rng.standard_normal((c, c, 3, 3)) * 0.2).astype(f)),
        cl.Data("w3", (rng.standard_normal((c, c, 5, 5)) * 0.1).astype(f)),
        cl.Convolution("conv1", "x", weights="w1", pad=(1, 1)),
        cl.Activation("relu1", "conv1", "relu"),
        cl.Convolution("conv2", "relu1", weights="w2", pad=(1, 1)),                     # halo 1 all round
        cl.Convolution("conv3", "relu1", weights="w3", stride=(2, 2), pad=(2, 1), pad_end=(1, 2)),  # other halo
        cl.Eltwise("out", ["conv2", "conv2"], mode="sum"),
        cl.Activation("out3", "conv3", "tanh"),
    )


def test_halo_is_the_union_over_users_and_results_agree(engine, rng):
    topo = _net(rng)
    prog = cl.Program(engine, topo)
    conv1 = prog.node("relu1")  # relu1 is fused into conv1: conv1 produces both convolutions' input
    assert conv1.id == "conv1"
    if prog.node("conv2").layout().format != cl.Format.b_fs_yx_fsv16:
        pytest.skip("no blocked convolution kernel validates on this device: nothing to pad")
    assert halo(prog.node("conv2")) == ((1, 1), (1, 1))
    assert halo(prog.node("conv3")) == ((2, 0), (1, 1))  # the last row window ends inside; pad_end y unused
    pad = conv1.layout().padding
    assert pad.lower == (0, 0, 2, 1) and pad.upper == (0, 0, 1, 1)
    slots = prog.memory_slots  # a padded buffer is shared only with tensors of the very same padded layout
    assert all(prog.node(o).layout() == conv1.layout() for o, s in slots.items() if s == slots.get("conv1"))
    x = rng.standard_normal((1, 16, 9, 9)).astype(np.float32)
    got = cl.Network(prog).run({"x": x})
    ref = cl.Network(cl.Program(engine, topo, cl.BuildOptions(optimize_data=False))).run({"x": x})
    for k in ("out", "out3"):
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-4, atol=1e-5)
