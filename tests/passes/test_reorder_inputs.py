"""reorder_inputs: convolutions go blocked where a fast kernel exists; data flows blocked from layer to layer."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.passes.graph_initializations import GraphInitializations
from cldnn_py.passes.mark_nodes import MarkNodes
from cldnn_py.passes.reorder_inputs import ReorderInputs, fast_blocked_kernel
from cldnn_py.primitives.deconvolution import Deconvolution
from tests.passes.graphs import builder, graph

F = cl.Format


def _chain(rng, c=16):
    f = np.float32
    return cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, F.bfyx, (1, c, 8, 8))),
                       cl.Data("w1", rng.standard_normal((c, c, 3, 3)).astype(f) / 12),
                       cl.Data("w2", rng.standard_normal((c, c, 1, 1)).astype(f) / 4),
                       cl.Convolution("conv1", "x", weights="w1", pad=(1, 1)),
                       cl.Activation("relu", "conv1", "relu"),
                       cl.Convolution("conv2", "relu", weights="w2"),
                       cl.Softmax("prob", "conv2", axis=1))


def test_blocked_convolutions_and_one_input_reorder(graph_engine, rng):
    b = builder(graph_engine, _chain(rng))
    for p in (GraphInitializations(), MarkNodes()):
        p.run(b)
    if fast_blocked_kernel(b, b.nodes["conv1"]) is None:
        pytest.skip("no blocked convolution kernel validates on this device")
    ReorderInputs().run(b)
    ids, edges = graph(b)
    if graph_engine.kind == "cpu":
        # whole blocked regions (passes/blocked_regions.py): conv2's output feeds a softmax, so conv2 reads the
        # blocked region of conv1 and writes bfyx; conv1 reads the plain input where it lies
        assert ids == ["x", "w1", "w2", "w1__os_iyx_osv16", "conv1", "relu", "w2__os_iyx_osv16", "conv2", "prob"]
        fmt = {n.id: n.layout().format for n in b.order}
        assert fmt["conv1"] == fmt["relu"] == F.b_fs_yx_fsv16 and fmt["conv2"] == fmt["prob"] == F.bfyx
        return
    assert ids == ["x", "w1", "w2", "conv1__input_b_fs_yx_fsv16", "w1__os_iyx_osv16", "conv1", "relu",
                   "w2__os_iyx_osv16", "conv2", "prob"]
    assert ("x", "conv1__input_b_fs_yx_fsv16") in edges and ("relu", "conv2") in edges  # nothing between
    fmt = {n.id: n.layout().format for n in b.order}
    assert fmt["conv1"] == fmt["relu"] == fmt["conv2"] == fmt["prob"] == F.b_fs_yx_fsv16
    assert fmt["w1__os_iyx_osv16"] == F.os_iyx_osv16


def test_results_match_unoptimized(engine, rng):
    topo = _chain(rng)
    x = rng.standard_normal((1, 16, 8, 8)).astype(np.float32)
    got = cl.Network(cl.Program(engine, topo)).run({"x": x})["prob"]
    ref = cl.Network(cl.Program(engine, topo, cl.BuildOptions(optimize_data=False))).run({"x": x})["prob"]
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_forced_reference_kernel_keeps_plain_layout(engine, rng):
    ref = "convolution_ref" if engine.kind == "ocl" else "convolution_cpu_ref"
    opts = cl.BuildOptions(force_implementations={"conv1": ref})
    prog = cl.Program(engine, _chain(rng), opts)
    assert prog.node("conv1").layout().format == F.bfyx


def test_fully_connected_after_blocked_data_gets_a_bfyx_reorder_for_the_fast_kernel(engine, rng):
    f = np.float32
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, F.bfyx, (1, 16, 4, 4))),
                       cl.Data("w", rng.standard_normal((16, 16, 3, 3)).astype(f) / 12),
                       cl.Data("fw", rng.standard_normal((10, 256)).astype(f) / 16),
                       cl.Convolution("conv", "x", weights="w", pad=(1, 1)),
                       cl.FullyConnected("fc", "conv", weights="fw"))
    prog = cl.Program(engine, topo)
    if prog.node("conv").layout().format != F.b_fs_yx_fsv16:
        pytest.skip("no blocked convolution kernel validates on this device")
    assert prog.node("fc").dependencies[0].id == "fc__input_bfyx"
    assert prog.node("fc").impl.kernel_name == "fully_connected_gemv"
    x = rng.standard_normal((1, 16, 4, 4)).astype(f)
    ref = cl.Network(cl.Program(engine, topo, cl.BuildOptions(optimize_data=False))).run({"x": x})["fc"]
    np.testing.assert_allclose(cl.Network(prog).run({"x": x})["fc"], ref, rtol=1e-5, atol=1e-5)


def test_first_layer_reads_its_plain_input_without_a_reorder(engine, rng):
    """A 3-channel first convolution: on OpenCL convolution_b_fs_yx_fsv16 reads the bfyx input where it lies (no
    reorder writing 16 lanes per pixel); the CPU engine's blocked kernel takes fsv16 only and keeps the reorder.
    Either way the result matches the unoptimized network."""
    f = np.float32
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, F.bfyx, (1, 3, 13, 11))),
                       cl.Data("w1", rng.standard_normal((16, 3, 3, 3)).astype(f) / 5),
                       cl.Data("w2", rng.standard_normal((32, 16, 3, 3)).astype(f) / 12),
                       cl.Convolution("conv1", "x", weights="w1", stride=(2, 2), pad=(1, 1)),
                       cl.Activation("relu", "conv1", "relu"),
                       cl.Convolution("conv2", "relu", weights="w2", pad=(1, 1)))
    prog = cl.Program(engine, topo)
    conv1 = prog.node("conv1")
    if conv1.layout().format != F.b_fs_yx_fsv16:
        pytest.skip("no blocked convolution kernel validates on this device")
    if engine.kind == "ocl":
        assert conv1.impl.kernel_name == "convolution_b_fs_yx_fsv16"
        assert conv1.dependencies[0].id == "x"
        assert not any(n.kind == "reorder" and n.dependencies[0].id == "x" for n in prog.order)
    x = rng.standard_normal((1, 3, 13, 11)).astype(f)
    ref = cl.Network(cl.Program(engine, topo, cl.BuildOptions(optimize_data=False))).run({"x": x})["conv2"]
    np.testing.assert_allclose(cl.Network(prog).run({"x": x})["conv2"], ref, rtol=1e-5, atol=1e-5)


def test_narrow_head_writes_plain(engine, rng):
    """A DBNet-style head: a 1-channel ConvTranspose after blocked data, then a sigmoid, is written in bfyx (not
    fsv16 with 15 empty lanes per pixel) on OpenCL; a 1-channel convolution head likewise; results match the
    unoptimized network."""
    f = np.float32
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, F.bfyx, (2, 16, 6, 7))),
                       cl.Data("w1", rng.standard_normal((16, 16, 3, 3)).astype(f) / 12),
                       cl.Data("wd", rng.standard_normal((16, 1, 2, 2)).astype(f) / 4),
                       cl.Data("wc", rng.standard_normal((2, 16, 1, 1)).astype(f) / 4),
                       cl.Convolution("conv1", "x", weights="w1", pad=(1, 1)),
                       Deconvolution("up", "conv1", weights="wd", stride=(2, 2)),
                       cl.Activation("prob", "up", "logistic"),
                       cl.Convolution("head", "conv1", weights="wc"),
                       cl.Activation("head_prob", "head", "logistic"))
    prog = cl.Program(engine, topo)
    if prog.node("conv1").layout().format != F.b_fs_yx_fsv16:
        pytest.skip("no blocked convolution kernel validates on this device")
    if engine.kind == "ocl":
        for nid in ("up", "prob", "head", "head_prob"):
            assert prog.node(nid).layout().format == F.bfyx, nid
        assert prog.node("up").impl.kernel_name == "deconvolution_b_fs_yx_fsv16"
        assert prog.node("head").impl.kernel_name == "convolution_b_fs_yx_fsv16"
    x = rng.standard_normal((2, 16, 6, 7)).astype(f)
    net = cl.Network(prog)
    net.poison()
    got = net.run({"x": x})
    ref = cl.Network(cl.Program(engine, topo, cl.BuildOptions(optimize_data=False))).run({"x": x})
    for k in ("prob", "head_prob"):
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-5, atol=1e-5)


def test_narrow_head_feeding_blocked_work_stays_blocked(engine, rng):
    """A 4-channel ConvTranspose whose sigmoid gates another blocked tensor (attention-map style) keeps the blocked
    format: a plain output there would only buy a reorder back. Results match the unoptimized network."""
    f = np.float32
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, F.bfyx, (1, 16, 6, 7))),
                       cl.Data("w1", rng.standard_normal((16, 16, 3, 3)).astype(f) / 12),
                       cl.Data("wa", rng.standard_normal((16, 4, 2, 2)).astype(f) / 4),
                       cl.Data("wb", rng.standard_normal((16, 4, 2, 2)).astype(f) / 4),
                       cl.Convolution("conv1", "x", weights="w1", pad=(1, 1)),
                       Deconvolution("att", "conv1", weights="wa", stride=(2, 2)),
                       cl.Activation("att_s", "att", "logistic"),
                       Deconvolution("val", "conv1", weights="wb", stride=(2, 2)),
                       cl.Eltwise("gated", ["val", "att_s"], mode="prod"))
    prog = cl.Program(engine, topo)
    if prog.node("conv1").layout().format != F.b_fs_yx_fsv16:
        pytest.skip("no blocked convolution kernel validates on this device")
    if engine.kind == "ocl":
        assert prog.node("att").layout().format == F.b_fs_yx_fsv16
    x = rng.standard_normal((1, 16, 6, 7)).astype(f)
    ref = cl.Network(cl.Program(engine, topo, cl.BuildOptions(optimize_data=False))).run({"x": x})["gated"]
    np.testing.assert_allclose(cl.Network(prog).run({"x": x})["gated"], ref, rtol=1e-5, atol=1e-5)
