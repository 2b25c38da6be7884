"""prepare_primitive_fusing: fold BatchNorm into convolution weights, residual sums and activations into the
kernel that produces their input (rules in ``passes/fusing/``, one per file).

Why: every fused op saves a full tensor write and read and a kernel launch (clDNN ``prepare_primitive_fusing``).
Each rule runs once, in the order of ``fusing.RULES``, over every node in execution order (a later rule sees what the
earlier ones fused, e.g. an activation after a residual sum fuses into the convolution that now hosts the sum);
then Data nodes left without users are removed.
"""

from __future__ import annotations

from ..pass_manager import BasePass
from ..program_graph import ProgramGraph
from ..program_node import remove_node, topological_order
from .fusing import RULES


class PreparePrimitiveFusing(BasePass):
    """Applies every fusion rule to every node."""

    name = "prepare_primitive_fusing"

    def run(self, program: ProgramGraph) -> None:
        """Rules in order, each over the nodes in execution order."""
        for rule in RULES:
            for node in list(program.order):
                self.node = node.id
                if program.nodes.get(node.id) is node and node.id not in program.forced_impls:
                    rule(program, node)
            program.order = topological_order(program.nodes)
        for n in [n for n in program.nodes.values() if n.kind == "data" and not n.users and not n.is_output]:
            program.removed[n.id] = (n.kind, "")  # weights replaced by folded ones: OPTIMIZED_OUT in profiling
            remove_node(program.nodes, n)
        program.order = topological_order(program.nodes)
