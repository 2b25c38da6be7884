"""propagate_constants: constant subgraphs run once at build time and become Data."""

from __future__ import annotations

import numpy as np

import cldnn_py as cl
from cldnn_py.passes.graph_initializations import GraphInitializations
from cldnn_py.passes.mark_nodes import MarkNodes
from cldnn_py.passes.propagate_constants import PropagateConstants
from cldnn_py.passes.trim_to_outputs import TrimToOutputs
from tests.passes.graphs import builder, evaluator, graph


def _topology(rng):
    w = rng.standard_normal((1, 4, 3, 3)).astype(np.float32)
    return cl.Topology(
        cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 4, 3, 3))),
        cl.Data("w", w),
        cl.Activation("w_abs", "w", "abs"),
        cl.Reorder("w_blocked", "w_abs", cl.Format.b_fs_yx_fsv16),
        cl.Eltwise("sum", ["x", "w_blocked"], mode="sum"),
    ), w


def test_constant_chain_becomes_data(engine, rng):
    topo, w = _topology(rng)
    b = builder(engine, topo)
    for p in (GraphInitializations(), TrimToOutputs(), MarkNodes()):
        p.run(b)
    assert graph(b) == (["x", "w", "w_abs", "w_blocked", "sum"],
                        {("x", "sum"), ("w", "w_abs"), ("w_abs", "w_blocked"), ("w_blocked", "sum")})
    PropagateConstants(evaluator(engine)).run(b)
    assert graph(b) == (["x", "w_blocked", "sum"], {("x", "sum"), ("w_blocked", "sum")})
    node = b.nodes["w_blocked"]
    assert node.kind == "data" and node.optimized_out and node.constant
    assert node.layout().format == cl.Format.b_fs_yx_fsv16
    np.testing.assert_array_equal(node.primitive.array, np.abs(w))


def test_optimized_and_reference_builds_agree(engine, rng):
    topo, w = _topology(rng)
    x = rng.standard_normal((1, 4, 3, 3)).astype(np.float32)
    fast = cl.Network(cl.Program(engine, topo, cl.BuildOptions(optimize_data=True)))
    ref = cl.Network(cl.Program(engine, topo, cl.BuildOptions(optimize_data=False)))
    np.testing.assert_allclose(fast.run({"x": x})["sum"], x + np.abs(w), rtol=1e-6)
    np.testing.assert_allclose(ref.run({"x": x})["sum"], x + np.abs(w), rtol=1e-6)
    executed = [p for p in fast.get_profiling_info() if p.status == "EXECUTED"]
    assert [p.id for p in executed] == ["sum"]
    assert len([p for p in ref.get_profiling_info() if p.status == "EXECUTED"]) == 3
