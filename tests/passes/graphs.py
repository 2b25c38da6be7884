"""Helpers for pass tests written as graph before → graph expected."""

from __future__ import annotations

import cldnn_py as cl
from cldnn_py.program import ProgramBuilder


def builder(engine: cl.Engine, topo: cl.Topology, options: cl.BuildOptions | None = None) -> ProgramBuilder:
    """The program graph straight from the topology, before any pass."""
    return ProgramBuilder(engine, topo, options or cl.BuildOptions())


def graph(b: ProgramBuilder) -> tuple[list[str], set[tuple[str, str]]]:
    """(node ids in order, edges as (dependency, user)) of a program graph; checks both edge directions agree."""
    edges = {(d.id, n.id) for n in b.nodes.values() for d in n.dependencies}
    back = {(n.id, u.id) for n in b.nodes.values() for u in n.users}
    assert edges == back, f"dependency and user edges disagree: {edges ^ back}"
    return [n.id for n in b.order], edges
