"""add_required_reorders: where no kernel accepts a node's input formats, reorder those inputs to bfyx.

Why: the layout optimizer chooses formats for the network as a whole, and some primitive may then meet an input
format none of its kernels takes (every reference kernel takes every format today, so this is the safety net for
restricted fast kernels and for later primitives). The selector is asked as compile_graph will ask it; only when it
has no candidate are reorders inserted, and the node is asked again.
"""

from __future__ import annotations

from kernel_selector import selector

from ..kernel_params import node_params
from ..layout import Format
from ..pass_manager import BasePass
from ..primitives import Reorder
from ..program_graph import ProgramGraph
from ..program_node import insert_between, recompute_layouts, topological_order


class AddRequiredReorders(BasePass):
    """Inserts reorders to bfyx in front of nodes no kernel can run as they are."""

    name = "add_required_reorders"

    def run(self, program: ProgramGraph) -> None:
        """Check every kernel-running node with the selector."""
        changed = False
        for node in list(program.order):
            if node.optimized_out or node.constant:
                continue
            self.node = node.id
            if any(v.reason is None for v in selector.explain(node_params(program, node))):
                continue
            own = len(node.primitive.dependencies())
            for dep in list(node.dependencies[:own]):
                if dep.layout().format not in (Format.bfyx, Format.oiyx) and dep.layout().rank <= 4:
                    rid = f"{node.id}__{dep.id}__bfyx"
                    insert_between(program.nodes, dep, node, Reorder(rid, dep.id, format=Format.bfyx))
                    changed = True
        if changed:
            program.order = topological_order(program.nodes)
            recompute_layouts(program.order)
