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


def test_a_plain_reorder_of_data_is_computed_on_the_host(engine, rng):
    """A format change and an f32 → f16 conversion of a Data never reach the device evaluator; the values are the
    Data's (f16: rounded to nearest even, numpy's astype, as vstore_half); an Activation still runs on the device."""
    w = (rng.standard_normal((16, 4, 3, 3)) * 100).astype(np.float32)
    topo = cl.Topology(
        cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (16, 4, 3, 3))),
        cl.Data("w", w),
        cl.Reorder("w_packed", "w", cl.Format.os_iyx_osv16),
        cl.Reorder("w_half", "w", cl.Format.b_fs_yx_fsv16, dtype=cl.DataType.f16),
        cl.Activation("w_abs", "w", "abs"),
        cl.Eltwise("s1", ["x", "w_packed"], mode="sum"),
        cl.InputLayout("x16", cl.Layout(cl.DataType.f16, cl.Format.b_fs_yx_fsv16, (16, 4, 3, 3))),
        cl.Eltwise("s2", ["x16", "w_half"], mode="sum"),
        cl.Eltwise("s3", ["x", "w_abs"], mode="sum"),
    )
    b = builder(engine, topo)
    for p in (GraphInitializations(), TrimToOutputs(), MarkNodes()):
        p.run(b)
    seen: list[list[str]] = []
    device = evaluator(engine)

    def spy(t):
        seen.append(list(t.outputs))
        return device(t)

    PropagateConstants(spy).run(b)
    assert seen == [["w_abs"]]
    assert "w" not in b.nodes                      # nobody reads the Data any more
    packed = b.nodes["w_packed"]
    assert packed.kind == "data" and packed.layout().format == cl.Format.os_iyx_osv16
    np.testing.assert_array_equal(packed.primitive.array, w)
    half = b.nodes["w_half"]
    assert half.primitive.array.dtype == np.float16 and half.layout().format == cl.Format.b_fs_yx_fsv16
    np.testing.assert_array_equal(half.primitive.array, w.astype(np.float16))
    np.testing.assert_array_equal(b.nodes["w_abs"].primitive.array, np.abs(w))
