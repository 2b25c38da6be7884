"""mark_nodes: set the flags later passes and the Network read.

- ``is_output``: the node is a network output;
- ``constant``: Data, or every dependency constant (a later propagate_constants pass folds these);
- ``optimized_out``: the node runs no kernel (Data and InputLayout: their memory is given, not computed).
"""

from __future__ import annotations

from ..pass_manager import BasePass
from ..program_graph import ProgramGraph


class MarkNodes(BasePass):
    """Sets is_output, constant and optimized_out on every node."""

    name = "mark_nodes"

    def run(self, program: ProgramGraph) -> None:
        """One forward walk in dependency order."""
        outs = set(program.outputs)
        for node in program.order:
            node.is_output = node.id in outs
            if node.kind == "data":
                node.constant = True
            elif node.kind == "input_layout":
                node.constant = False
            else:
                node.constant = bool(node.dependencies) and all(d.constant for d in node.dependencies)
            node.optimized_out = node.kind in ("data", "input_layout")
