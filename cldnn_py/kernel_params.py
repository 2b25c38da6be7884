"""The one bridge between the program graph and the kernel_selector: a program_node → kernel_selector ``Params``.

Passes never know kernels and kernels never know the graph; every pass that asks the selector (reorder_inputs,
add_required_reorders, compile_graph) builds its Params here, so no pass imports another pass.
"""

from __future__ import annotations

import dataclasses

from kernel_selector import FusedOp, Params

from .program_graph import ProgramGraph
from .program_node import ProgramNode


def node_params(graph: ProgramGraph, node: ProgramNode) -> Params:
    """The kernel_selector Params of a node: its own inputs' layouts (fused ops' extra inputs, which follow them
    among the dependencies, go with their FusedOp), output layout, typed attributes, fused ops, the engine kind and
    the device description and capabilities (``graph.device_caps``, filled by compile_graph; empty before it)."""
    own = len(node.primitive.dependencies())
    caps = graph.engine.info.caps
    if graph.options.emulate_subgroups and not caps.native_subgroups:
        caps = dataclasses.replace(caps, subgroup_emulation=True)
    fused = [FusedOp(op.kind, op.attrs, [node.dependencies[i].layout() for i in op.dep_indices],
                     list(op.dep_indices), op.fused_id) for op in node.fused_ops]
    return Params(kind=node.kind, engine=graph.engine.kind, inputs=[d.layout() for d in node.dependencies[:own]],
                  output=node.layout(), attrs=node.primitive.attrs(), fused_ops=fused,
                  layer_id=node.id, device=graph.engine.info,
                  device_caps=dict(graph.device_caps), caps=caps,
                  kernel_tier=graph.options.resolved_tier(caps.device_type))
