"""propagate_constants: run every constant subgraph once at build time and replace it by Data.

Why: weights reorders into a kernel's packed layout, folded BatchNorm factors, or any computation on constants would
otherwise run at every execution. As in clDNN's ``propagate_constants.cpp``: find the constant nodes whose value a
non-constant node (or an output) needs, build and run just that subgraph (a Program of its own, built without
optimizations), and turn each of those nodes into a Data holding its result, in the same format. Constant nodes left
without users are removed.
"""

from __future__ import annotations

from ..pass_manager import BasePass
from ..primitives import Data
from ..program import ProgramBuilder
from ..program_node import remove_node, topological_order


class PropagateConstants(BasePass):
    """Folds constant non-Data nodes into Data (only with ``BuildOptions(optimize_data=True)``)."""

    name = "propagate_constants"

    def run(self, program: ProgramBuilder) -> None:
        """Evaluate the frontier of the constant subgraph on the device and replace it by Data."""
        frontier = [n for n in program.order if n.constant and n.kind != "data"
                    and (n.is_output or any(not u.constant for u in n.users))]
        if not frontier:
            return
        from ..network import Network
        from ..program import BuildOptions, Program
        from ..topology import Topology

        needed: set[str] = set()
        stack = list(frontier)
        while stack:
            n = stack.pop()
            if n.id not in needed:
                needed.add(n.id)
                stack.extend(n.dependencies)
        topo = Topology(*[n.primitive for n in program.order if n.id in needed])
        topo.outputs = [n.id for n in frontier]
        values = Network(Program(program.engine, topo, BuildOptions(optimize_data=False))).run({})
        for n in frontier:
            fmt = n.layout().format
            n.primitive = Data(n.id, values[n.id], format=fmt)
            for d in n.dependencies:
                d.users = [u for u in d.users if u is not n]
            n.dependencies = []
            n.optimized_out = True
            n.output_layout = n.primitive.calc_output_layout([])
        changed = True
        while changed:  # drop constant nodes nobody reads any more
            changed = False
            for n in list(program.nodes.values()):
                if n.constant and not n.users and not n.is_output and n.id in needed and n not in frontier:
                    program.removed[n.id] = (n.kind, "")
                    remove_node(program.nodes, n)
                    changed = True
        program.order = topological_order(program.nodes)
