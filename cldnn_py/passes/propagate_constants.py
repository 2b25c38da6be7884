"""propagate_constants: run every constant subgraph once at build time and replace it by Data.

Why: weights reorders into a kernel's packed layout, folded BatchNorm factors, or any computation on constants would
otherwise run at every execution. As in clDNN's ``propagate_constants.cpp``: find the constant nodes whose value a
non-constant node (or an output) needs, run just that subgraph (through the ``evaluate`` callback: a Program of
its own, built without optimizations, in a Network), and turn each of those nodes into a Data holding its result,
in the same format. Constant nodes left without users are removed.

A Reorder of a Data that only changes the format (or converts between f32 and f16) is computed on the host: a
Data's array is logical, so its value is the same array (cast with round-to-nearest-even, as ``vstore_half``),
and the new format is applied at upload. Those are the packed weights of every convolution and fully connected
layer (all 53 constant nodes of ResNet-50): on the device each would be a kernel of its own, whose first run costs
PoCL a work-group compile (about 45 ms each with empty caches).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..layout import DataType
from ..pass_manager import BasePass
from ..primitives import Data
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode, remove_node, topological_order
from ..topology import Topology

Evaluate = Callable[[Topology], dict[str, np.ndarray]]


class PropagateConstants(BasePass):
    """Folds constant non-Data nodes into Data (only with ``BuildOptions(optimize_data=True)``).

    Args:
        evaluate: runs a Topology without inputs on the program's device and returns {output id: array}; Program
            passes one that builds it unoptimized and runs it in a Network (the pass itself never imports the
            network, so passes stay below the runtime).
    """

    name = "propagate_constants"

    def __init__(self, evaluate: Evaluate) -> None:
        self.evaluate = evaluate

    def run(self, program: ProgramGraph) -> None:
        """Evaluate the frontier of the constant subgraph on the device and replace it by Data."""
        frontier = [n for n in program.order if n.constant and n.kind != "data"
                    and (n.is_output or any(not u.constant for u in n.users))]
        if not frontier:
            return
        values = {n.id: v for n in frontier if (v := _on_host(n)) is not None}
        needed: set[str] = set()
        stack = [n for n in frontier if n.id not in values]
        device = [n.id for n in stack]
        while stack:
            n = stack.pop()
            if n.id not in needed:
                needed.add(n.id)
                stack.extend(n.dependencies)
        if device:
            topo = Topology(*[n.primitive for n in program.order if n.id in needed])
            topo.outputs = device
            values.update(self.evaluate(topo))
        for n in frontier:  # a Data read by a host-computed node only is dropped below like any other
            needed.add(n.id)
            needed.update(d.id for d in n.dependencies)
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


_FLOATS = (DataType.f32, DataType.f16)


def _on_host(n: ProgramNode) -> np.ndarray | None:
    """The value of constant node ``n`` when it is a plain Reorder of a Data (format change, or f32 <-> f16) without
    fused ops: the Data's logical array, cast; None otherwise (the device computes it)."""
    deps = n.dependencies
    if n.kind != "reorder" or n.fused_ops or len(deps) != 1 or not isinstance(deps[0].primitive, Data):
        return None
    arr = deps[0].primitive.array
    out = n.layout().dtype
    src = DataType.from_numpy(arr.dtype)
    if out == src:
        return arr
    if out in _FLOATS and src in _FLOATS:
        return arr.astype(out.numpy)
    return None
