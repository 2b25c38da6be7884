"""trim_to_outputs: drop every node from which no network output can be reached.

Why: a topology may hold weights or whole branches that no output needs (an unused Data, an input nobody reads,
a branch left over from editing). Running or uploading them costs time and memory. As in clDNN's
``trim_to_outputs.cpp``: mark the outputs, walk backward along dependencies, remove what was not reached.
"""

from __future__ import annotations

from ..pass_manager import BasePass
from ..program_graph import ProgramGraph
from ..program_node import remove_node, topological_order


class TrimToOutputs(BasePass):
    """Keeps only nodes that some output depends on (transitively)."""

    name = "trim_to_outputs"

    def run(self, program: ProgramGraph) -> None:
        """Backward walk from ``program.outputs``; remove the unreached nodes."""
        reached: set[str] = set()
        stack = [program.nodes[o] for o in program.outputs]
        while stack:
            n = stack.pop()
            if n.id in reached:
                continue
            reached.add(n.id)
            stack.extend(n.dependencies)
        for node in [n for n in program.nodes.values() if n.id not in reached]:
            remove_node(program.nodes, node)
        program.order = topological_order(program.nodes)
