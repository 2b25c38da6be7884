"""mark_nodes: flags before → after: outputs, constants (Data and what only Data feeds), optimized-out nodes."""

from __future__ import annotations

import numpy as np

import cldnn_py as cl
from cldnn_py.passes.graph_initializations import GraphInitializations
from cldnn_py.passes.mark_nodes import MarkNodes
from cldnn_py.passes.trim_to_outputs import TrimToOutputs
from tests.passes.graphs import builder


def test_flags(graph_engine):
    rng = np.random.default_rng(0)
    topo = cl.Topology(
        cl.InputLayout("data", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 2, 3, 3))),
        cl.Data("w", rng.standard_normal((1, 2, 3, 3)).astype(np.float32)),
        cl.Activation("w_abs", "w", "abs"),  # constant subgraph: only Data feeds it
        cl.Eltwise("sum", ["data", "w_abs"], mode="sum"),
    )
    b = builder(graph_engine, topo)
    assert not any(n.constant or n.optimized_out or n.is_output for n in b.nodes.values())
    for p in (GraphInitializations(), TrimToOutputs(), MarkNodes()):
        p.run(b)
    flags = {n.id: (n.constant, n.optimized_out, n.is_output) for n in b.nodes.values()}
    assert flags == {
        "data": (False, True, False),
        "w": (True, True, False),
        "w_abs": (True, False, False),
        "sum": (False, False, True),
    }
