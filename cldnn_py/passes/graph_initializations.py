"""graph_initializations: compute every node's output layout in dependency order.

Each primitive's ``calc_output_layout`` checks its inputs (weights vs convolution, broadcasting ...) and raises
ShapeError naming the primitive; nothing downstream runs on a wrong shape.
"""

from __future__ import annotations

from ..pass_manager import BasePass
from ..program_graph import ProgramGraph


class GraphInitializations(BasePass):
    """Sets ``node.output_layout`` for all nodes."""

    name = "graph_initializations"

    def run(self, program: ProgramGraph) -> None:
        """Walk ``program.order`` and compute layouts from the dependencies' layouts."""
        for node in program.order:
            self.node = node.id
            node.output_layout = node.primitive.calc_output_layout([d.layout() for d in node.dependencies])
