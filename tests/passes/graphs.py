"""Helpers for pass tests written as graph before → graph expected."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import cldnn_py as cl
from cldnn_py.program_graph import ProgramGraph


def builder(engine: cl.Engine, topo: cl.Topology, options: cl.BuildOptions | None = None) -> ProgramGraph:
    """The program graph straight from the topology, before any pass."""
    return ProgramGraph(engine, topo, options or cl.BuildOptions())


def evaluator(engine: cl.Engine) -> Callable[[cl.Topology], dict[str, np.ndarray]]:
    """propagate_constants' ``evaluate`` as Program gives it: the subgraph built unoptimized, run in a Network."""
    return lambda topo: cl.Network(cl.Program(engine, topo, cl.BuildOptions(optimize_data=False))).run({})


def graph(b: ProgramGraph) -> tuple[list[str], set[tuple[str, str]]]:
    """(node ids in order, edges as (dependency, user)) of a program graph; checks both edge directions agree."""
    edges = {(d.id, n.id) for n in b.nodes.values() for d in n.dependencies}
    back = {(n.id, u.id) for n in b.nodes.values() for u in n.users}
    assert edges == back, f"dependency and user edges disagree: {edges ^ back}"
    return [n.id for n in b.order], edges
