"""compile_graph: every node that runs gets a selected kernel; identical kernel sources are built once."""

from __future__ import annotations

import cldnn_py as cl
from cldnn_py.passes import pipeline
from tests.passes.graphs import builder

L = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 4, 5, 5))


def test_impls_selected_and_duplicates_built_once(engine):
    topo = cl.Topology(cl.InputLayout("a", L), cl.InputLayout("b", L),
                       cl.Activation("relu_a", "a"), cl.Activation("relu_b", "b"),  # same kernel source
                       cl.Activation("tanh_a", "relu_a", "tanh"), cl.Eltwise("sum", ["tanh_a", "relu_b"]))
    b = builder(engine, topo)
    assert all(n.impl is None for n in b.nodes.values())
    pm = cl.program.PassManager()
    pm.run(b, pipeline())
    kernels = {n.id: (n.impl.kernel_name if n.impl else None) for n in b.order}
    assert kernels["a"] is None and kernels["b"] is None  # inputs run no kernel
    assert kernels["relu_a"] == kernels["relu_b"] == kernels["tanh_a"] == "activation_ref"
    assert kernels["sum"] is not None
    entries = {n.id: n.impl.kernels[0].entry for n in b.order if n.impl}
    assert entries["relu_a"] == entries["relu_b"] != entries["tanh_a"]
    assert b.kernels_built == len(set(entries.values()))
    assert set(b.entry_program) == set(entries.values())


def test_pipeline_order_is_declared_in_one_place():
    from cldnn_py.passes import PIPELINE, pipeline

    assert PIPELINE[0] == "graph_initializations" and PIPELINE[-1] == "prepare_memory_dependencies"
    assert {"trim_to_outputs", "mark_nodes", "compile_graph"} <= set(PIPELINE)
    assert [p.name for p in pipeline(optimize_data=False)] == ["graph_initializations", "trim_to_outputs",
                                                               "mark_nodes", "add_required_reorders",
                                                               "compile_graph"]
