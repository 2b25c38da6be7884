"""remove_redundant_reorders: drop reorders that change nothing, and collapse format-only reorder chains.

Why: reorder_inputs and add_required_reorders insert reorders locally; some turn out to convert a layout to itself
(the producer already had the format) or to follow another pure format change. A reorder is removed when its
output layout equals its input layout (format, data type, padding) and it is not a network output; in a chain
r2(r1(x)) where r1 only changes the format and r2 is its only user, r2 reads x directly. A reorder that maps
values within one data type (``convert_mode="bool"``, ONNX Cast to bool) is never a no-op.
"""

from __future__ import annotations

from ..pass_manager import BasePass
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode, remove_node, topological_order


def _same(a: ProgramNode, b: ProgramNode) -> bool:
    la, lb = a.layout(), b.layout()
    return la.format == lb.format and la.dtype == lb.dtype and la.padding == lb.padding and la.shape == lb.shape


def _maps_values(node: ProgramNode) -> bool:
    """A reorder whose conversion changes values even within one data type (ONNX Cast to bool: non-zero -> 1)."""
    return getattr(node.primitive, "convert_mode", "round") == "bool"


class RemoveRedundantReorders(BasePass):
    """Removes no-op reorders; shortcuts format-only reorder chains."""

    name = "remove_redundant_reorders"

    def run(self, program: ProgramGraph) -> None:
        """One walk in execution order."""
        for node in list(program.order):
            if node.kind != "reorder" or program.nodes.get(node.id) is not node or node.id in program.forced_impls:
                continue
            src = node.dependencies[0]
            if _same(src, node) and not node.is_output and not _maps_values(node):
                program.fuse(node, src)
                continue
            users = {id(u) for u in src.users}
            if (src.kind == "reorder" and len(users) == 1 and not src.is_output and src.id not in program.forced_impls
                    and src.layout().dtype == src.dependencies[0].layout().dtype and not _maps_values(src)):
                origin = src.dependencies[0]
                node.dependencies = [origin]
                origin.users = [u for u in origin.users if u is not src] + [node]
                src.users = []
                program.removed[src.id] = (src.kind, "")
                remove_node(program.nodes, src)
                if _same(origin, node) and not node.is_output and not _maps_values(node):
                    program.fuse(node, origin)
        program.order = topological_order(program.nodes)
