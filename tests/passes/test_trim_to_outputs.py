"""trim_to_outputs: nodes no output depends on are removed; everything an output needs stays."""

from __future__ import annotations

import numpy as np

import cldnn_py as cl
from cldnn_py.passes.graph_initializations import GraphInitializations
from cldnn_py.passes.trim_to_outputs import TrimToOutputs
from tests.passes.graphs import builder, graph

L = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 2, 4, 4))


def _topology():
    w = np.random.default_rng(0).standard_normal((2, 2, 1, 1)).astype(np.float32)
    return cl.Topology(
        cl.InputLayout("data", L), cl.InputLayout("unused_input", L),
        cl.Data("w", w), cl.Data("unused_w", w),
        cl.Convolution("conv", "data", weights="w"), cl.Activation("relu", "conv"),
    )


def test_unused_data_and_inputs_are_removed(graph_engine):
    b = builder(graph_engine, _topology())
    before = graph(b)
    assert before == (["data", "unused_input", "w", "unused_w", "conv", "relu"],
                      {("data", "conv"), ("w", "conv"), ("conv", "relu")})
    GraphInitializations().run(b)
    TrimToOutputs().run(b)
    assert graph(b) == (["data", "w", "conv", "relu"], {("data", "conv"), ("w", "conv"), ("conv", "relu")})
    assert b.outputs == ["relu"]


def test_named_output_keeps_its_branch(graph_engine):
    topo = _topology()
    topo.add(cl.Activation("side", "conv", "tanh"))
    b = builder(graph_engine, topo, cl.BuildOptions(outputs=["conv"]))
    GraphInitializations().run(b)
    TrimToOutputs().run(b)
    ids, edges = graph(b)
    assert b.outputs == ["relu", "side", "conv"]
    assert ids == ["data", "w", "conv", "relu", "side"] and ("conv", "side") in edges


def test_program_runs_without_trimmed_inputs(engine, rng):
    net = cl.Network(cl.Program(engine, _topology()))
    assert net.input_ids == ["data"]  # the unused input need not be set
    x = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
    assert net.run({"data": x})["relu"].shape == (1, 2, 4, 4)
