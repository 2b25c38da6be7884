"""prepare_padding on the CPU engine: a convolution that feeds only k×k convolutions on channel-vector row tiles
writes a zero-bordered output, which they read in place (convolution_cpu_packed's IN_PLACE_GRID); every network
equals the unoptimized build, and a producer with another kind of user, or a consumer that would copy anyway, is
left alone."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.kernel_params import node_params
from kernel_selector.kernels.convolution import convolution_kernel_cpu_packed as packed

F = np.float32


@pytest.fixture(scope="module")
def cpu():
    return cl.Engine("cpu")


def _w(rng, *shape):
    return (rng.standard_normal(shape) * (2.0 / np.prod(shape[1:])) ** 0.5).astype(F)


def _topology(rng, c=24, hw=(11, 13), extra_user=None):
    """x → 1×1 (+relu) → {3×3 same, 3×3 stride 2} → outputs; ``extra_user`` adds a third user of the 1×1's output:
    "pool" (a max pooling) or "1x1" (another 1×1 convolution)."""
    prims = [
        cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, c) + hw)),
        cl.Data("w1", _w(rng, 32, c, 1, 1)), cl.Data("b1", _w(rng, 32)),
        cl.Data("w2", _w(rng, 48, 32, 3, 3)), cl.Data("w3", _w(rng, 40, 32, 3, 3)),
        cl.Convolution("reduce", "x", weights="w1", bias="b1"),
        cl.Activation("relu", "reduce", "relu"),
        cl.Convolution("same", "relu", weights="w2", pad=(1, 1)),
        cl.Convolution("down", "relu", weights="w3", stride=(2, 2), pad=(1, 1)),
    ]
    if extra_user == "pool":
        prims.append(cl.Pooling("pool", "relu", "max", kernel=(2, 2), stride=(2, 2)))
    elif extra_user == "1x1":
        prims += [cl.Data("w4", _w(rng, 16, 32, 1, 1)), cl.Convolution("pool", "relu", weights="w4")]
    return cl.Topology(*prims)


def _outputs(engine, topo, x, **opts):
    net = cl.Network(cl.Program(engine, topo, cl.BuildOptions(**opts)))
    return net, net.run({"x": x})


def test_producer_padded_and_read_in_place(cpu, rng, monkeypatch):
    """The 1×1's output carries the union of both users' halos (stride 2 on 11×13: none after in y, one column
    after in x, so the same-size layer's decides); both 3×3 layers read it in place (their pad_planes never runs)
    and every output equals the build without optimizations."""
    topo = _topology(rng)
    x = rng.standard_normal((2, 24, 11, 13)).astype(F)
    net, got = _outputs(cpu, topo, x)
    prog = net.program
    pad = prog.node("reduce").layout().padding
    assert pad.lower == (0, 0, 1, 1) and pad.upper == (0, 0, 1, 1)
    for cid in ("same", "down"):
        assert packed.form_of(node_params(prog, prog.node(cid))).in_place
    assert packed.writes_padded_rows(node_params(prog, prog.node("reduce")))

    def no_copy(*a):
        raise AssertionError("an input read in place was copied")

    monkeypatch.setattr(packed, "pad_planes", no_copy)  # kernels look the copy up when they run
    got = net.run({"x": x})
    _, ref = _outputs(cpu, topo, x, optimize_data=False)
    for k in ("same", "down"):
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-4, atol=1e-5)


def test_producer_with_another_user_is_left_alone(cpu, rng):
    """A user that would not read the halo in place (a pooling): no padding, the same results."""
    topo = _topology(rng, extra_user="pool")
    x = rng.standard_normal((2, 24, 11, 13)).astype(F)
    net, got = _outputs(cpu, topo, x)
    assert net.program.node("reduce").layout().padding.is_zero
    _, ref = _outputs(cpu, topo, x, optimize_data=False)
    for k in ("same", "down", "pool"):
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-4, atol=1e-5)


def test_a_1x1_user_reads_the_padded_output_in_place(cpu, rng):
    """A 1×1 user next to the k×k ones (SqueezeNet's fire modules) reads the padded output's interior in place."""
    topo = _topology(rng, extra_user="1x1")
    x = rng.standard_normal((2, 24, 11, 13)).astype(F)
    net, got = _outputs(cpu, topo, x)
    prog = net.program
    assert not prog.node("reduce").layout().padding.is_zero
    assert packed.form_of(node_params(prog, prog.node("pool"))).rows_in
    _, ref = _outputs(cpu, topo, x, optimize_data=False)
    for k in ("same", "down", "pool"):
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-4, atol=1e-5)


def test_switched_off_pads_nothing(cpu, rng, monkeypatch):
    """IN_PLACE_GRID off: the 3×3 layers copy their input again and no producer is padded."""
    monkeypatch.setattr(packed, "IN_PLACE_GRID", False)
    net, _ = _outputs(cpu, _topology(rng), rng.standard_normal((2, 24, 11, 13)).astype(F))
    assert net.program.node("reduce").layout().padding.is_zero


def test_padded_buffers_share_only_with_their_layout_and_repeat_runs_agree(cpu, rng):
    """A chain of 1×1 → 3×3 blocks: the padded outputs of equal layouts may share a pool buffer (their halos stay
    zero: every producer writes only the interior), no other tensor does; three runs on fresh inputs each equal
    the unoptimized build (a halo dirtied by a reused buffer would show)."""
    c, hw = 16, (9, 10)
    prims = [cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, c) + hw))]
    cur = "x"
    for i in range(3):
        prims += [cl.Data(f"a{i}", _w(rng, 32, c, 1, 1)), cl.Data(f"b{i}", _w(rng, c, 32, 3, 3)),
                  cl.Convolution(f"r{i}", cur, weights=f"a{i}"), cl.Activation(f"relu{i}", f"r{i}", "relu"),
                  cl.Convolution(f"c{i}", f"relu{i}", weights=f"b{i}", pad=(1, 1))]
        cur = f"c{i}"
    topo = cl.Topology(*prims)
    prog = cl.Program(cpu, topo)
    padded = {n.id for n in prog.order if not n.layout().padding.is_zero}
    assert {"r0", "r1", "r2"} <= padded
    slots = prog.memory_slots
    for a, sa in slots.items():
        for b, sb in slots.items():
            if sa == sb and a != b and (a in padded or b in padded):
                assert prog.node(a).layout() == prog.node(b).layout(), (a, b)
    net = cl.Network(prog)
    ref_net = cl.Network(cl.Program(cpu, topo, cl.BuildOptions(optimize_data=False)))
    for _ in range(3):
        x = rng.standard_normal((1, c) + hw).astype(F)
        np.testing.assert_allclose(net.run({"x": x})[cur], ref_net.run({"x": x})[cur], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("blocked", [True, False], ids=["oc_blocked", "packed"])
def test_halo_of_a_convolution_with_a_fused_pooling(cpu, rng, monkeypatch, blocked):
    """x → 1×1 (32 ch) → 3×3 pad 1 → relu → 2×2 max pooling (fused into the 3×3: its layout is the pooled one) → 1×1
    (the output, bfyx). The
    halo is the 3×3's own (one row and column each side, from its unpooled output size), so the blocked 3×3 reads
    its input in place: the zero-bordered copy (pad_blocked, or packed's pad_planes with the blocked kernel off)
    never runs; results as unoptimized."""
    from kernel_selector.kernels.convolution import convolution_kernel_cpu_oc_blocked as ocb

    monkeypatch.setattr(ocb, "ENABLED", blocked)
    topo = cl.Topology(
        cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 16, 12, 18))),
        cl.Data("w1", _w(rng, 32, 16, 1, 1)), cl.Data("w2", _w(rng, 48, 32, 3, 3)),
        cl.Convolution("reduce", "x", weights="w1"),
        cl.Convolution("conv", "reduce", weights="w2", pad=(1, 1)),
        cl.Activation("relu", "conv", "relu"),
        cl.Pooling("pool", "relu", "max", kernel=(2, 2), stride=(2, 2)),
        cl.Data("w3", _w(rng, 16, 48, 1, 1)), cl.Convolution("out", "pool", weights="w3"))
    x = rng.standard_normal((2, 16, 12, 18)).astype(F)
    net = cl.Network(cl.Program(cpu, topo))
    conv = net.program.node("conv")
    want = "convolution_cpu_oc_blocked" if blocked else "convolution_cpu_packed"
    assert conv.impl.kernel_name == want and conv.layout().shape[2:] == (6, 9)
    assert [op.kind for op in conv.fused_ops][-1:] == ["pooling"]
    pad = net.program.node("reduce").layout().padding
    assert pad.lower[2:] == (1, 1) and pad.upper[2:] == (1, 1), pad

    def no_copy(*a):
        raise AssertionError("an input read in place was copied")

    monkeypatch.setattr(ocb, "pad_blocked", no_copy)  # the kernels look the copy up when they run
    monkeypatch.setattr(packed, "pad_planes", no_copy)
    got = net.run({"x": x})["out"]
    _, ref = _outputs(cpu, topo, x, optimize_data=False)
    np.testing.assert_allclose(got, ref["out"], rtol=1e-4, atol=1e-5)
