"""plain_inputs: graph before → graph expected. A blocked, padded or byxf InputLayout is stored plain bfyx and a
reorder to the declared layout feeds its users (the CPU kernel tier; with the GPU tier the users read the plain
input); plain inputs and inputs nobody reads are left alone."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from cldnn_py.passes.graph_initializations import GraphInitializations
from cldnn_py.passes.mark_nodes import MarkNodes
from cldnn_py.passes.plain_inputs import PlainInputs
from cldnn_py.passes.trim_to_outputs import TrimToOutputs
from tests.passes.graphs import builder, graph

F = cl.Format
SHAPE = (2, 5, 6, 7)


def _run(engine, topo, tier="cpu"):
    b = builder(engine, topo, cl.BuildOptions(kernel_tier=tier))
    for p in (GraphInitializations(), TrimToOutputs(), MarkNodes(), PlainInputs()):
        p.run(b)
    return b


@pytest.mark.parametrize("declared", [
    cl.Layout(cl.DataType.f32, F.b_fs_yx_fsv16, SHAPE),
    cl.Layout(cl.DataType.f32, F.bfyx, SHAPE, cl.Padding((0, 0, 1, 0), (0, 0, 0, 2))),
    cl.Layout(cl.DataType.i32, F.byxf, SHAPE),
])
def test_a_non_plain_input_becomes_plain_with_a_reorder_to_its_layout(graph_engine, declared):
    topo = cl.Topology(cl.InputLayout("x", declared), cl.Activation("a", "x", "abs"),
                       cl.Eltwise("e", ["x", "a"], "sum"))
    b = _run(graph_engine, topo)
    r = f"x__{declared.format.value}"
    assert graph(b) == (["x", r, "a", "e"], {("x", r), (r, "a"), (r, "e"), ("a", "e")})
    assert b.nodes["x"].layout() == cl.Layout(declared.dtype, F.bfyx, SHAPE)
    assert b.nodes["x"].primitive.layout == b.nodes["x"].layout()
    assert b.nodes[r].kind == "reorder" and b.nodes[r].layout() == declared
    assert not b.nodes[r].optimized_out and not b.nodes[r].constant


def test_plain_and_unread_inputs_are_left_alone(graph_engine):
    blocked = cl.Layout(cl.DataType.f32, F.b_fs_yx_fsv16, SHAPE)
    topo = cl.Topology(cl.InputLayout("p", cl.Layout(cl.DataType.f32, F.bfyx, SHAPE)),
                       cl.InputLayout("alone", blocked), cl.Activation("a", "p", "abs"))
    b = builder(graph_engine, topo, cl.BuildOptions(kernel_tier="cpu"))
    for p in (GraphInitializations(), MarkNodes(), PlainInputs()):  # no trim: "alone" stays, read by nobody
        p.run(b)
    assert graph(b) == (["p", "alone", "a"], {("p", "a")})
    assert b.nodes["alone"].layout() == blocked and b.nodes["p"].layout().format == F.bfyx


def test_the_reorder_id_does_not_clash(graph_engine):
    blocked = cl.Layout(cl.DataType.f32, F.b_fs_yx_fsv16, SHAPE)
    topo = cl.Topology(cl.InputLayout("x", blocked), cl.Activation("x__b_fs_yx_fsv16", "x", "abs"))
    b = _run(graph_engine, topo)
    assert graph(b)[0] == ["x", "x__b_fs_yx_fsv16_", "x__b_fs_yx_fsv16"]


def test_with_the_gpu_tier_the_users_read_the_plain_input(graph_engine):
    """The GPU tier's kernels take plain tensors: no reorder back to a declared blocked format (a convolution after
    it would get the reference kernel), and the declared padding goes too; the CPU engine keeps the reorder."""
    declared = cl.Layout(cl.DataType.f32, F.b_fs_yx_fsv16, SHAPE, cl.Padding((0, 0, 1, 1), (0, 0, 1, 1)))
    topo = cl.Topology(cl.InputLayout("x", declared), cl.Activation("a", "x", "abs"),
                       cl.Eltwise("e", ["x", "a"], "sum"))
    b = _run(graph_engine, topo, tier="gpu")
    assert b.nodes["x"].layout() == cl.Layout(cl.DataType.f32, F.bfyx, SHAPE)
    if graph_engine.kind == "ocl":
        assert graph(b) == (["x", "a", "e"], {("x", "a"), ("x", "e"), ("a", "e")})
    else:
        assert graph(b)[0] == ["x", "x__b_fs_yx_fsv16", "a", "e"]
