"""The one bridge between the program graph and the kernel_selector: a program_node → kernel_selector ``Params``.

Passes never know kernels and kernels never know the graph; every pass that asks the selector (reorder_inputs,
add_required_reorders, compile_graph) builds its Params here, so no pass imports another pass.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

from kernel_selector import DONT_USE_IF_HAVE_SOMETHING_ELSE, FusedOp, Params, selector

from .layout import Format, Padding
from .program_graph import ProgramGraph
from .program_node import ProgramNode


class GraphContext(Protocol):
    """What :func:`node_params` reads of a graph: a ProgramGraph during the build, a Program being loaded from a
    file (``program_io.py``)."""

    engine: Any
    options: Any
    device_caps: dict[str, str]


def node_params(graph: GraphContext, node: ProgramNode) -> Params:
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


BLOCKED = Format.b_fs_yx_fsv16
"""The blocked activation format of the fast convolution kernels."""
PACKED_WEIGHTS = Format.os_iyx_osv16
"""The packed weights format of the fast convolution kernels."""


def best_kernel(graph: GraphContext, node: ProgramNode) -> str | None:
    """The kernel the selector's priority rules give ``node`` as it stands (its current layouts, attributes and fused
    ops; no tuning cache), or None when none validates. The passes that change a node after the layouts are chosen
    (buffer fusing, fused shuffles) ask it before and after, and keep a change only where the kernel stays."""
    ok = [v for v in selector.explain(node_params(graph, node)) if v.reason is None]
    return ok[0].kernel if ok else None


def best_fast_kernel(params: Params) -> tuple[int, str] | None:
    """(priority, name) of the best non-reference kernel that validates for ``params``, or None."""
    for v in selector.explain(params):
        if v.reason is None and v.priority is not None and v.priority < DONT_USE_IF_HAVE_SOMETHING_ELSE:
            return v.priority, v.kernel
    return None


def best_plain_kernel(p: Params) -> tuple[int, str, bool] | None:
    """(priority, name, weights packed) of the best non-reference kernel for a convolution's Params ``p`` on its
    own data layouts, with its weights as they are or packed to os_iyx_osv16 (a constant reorder at build time),
    whichever is better (ties keep the weights as they are), or None. ``p`` is left unchanged."""
    own = best_fast_kernel(p)
    w = p.inputs[1]
    if w.format == PACKED_WEIGHTS or w.rank != 4:
        return None if own is None else (own[0], own[1], w.format == PACKED_WEIGHTS)
    p.inputs[1] = w.with_(format=PACKED_WEIGHTS, padding=Padding())
    try:
        packed = best_fast_kernel(p)
    finally:
        p.inputs[1] = w
    if packed is not None and (own is None or packed[0] < own[0]):
        return packed[0], packed[1], True
    return None if own is None else (own[0], own[1], False)


def fast_blocked_kernel(program: ProgramGraph, node: ProgramNode) -> str | None:
    """Name of a non-reference kernel that runs ``node`` (a convolution) on blocked layouts and is better than
    (lower priority) any that would run it on its current plain layouts, its weights as they are or packed
    (:func:`best_plain_kernel`), or None. On OpenCL the plain layouts have only the reference (and the blocked
    kernel's narrow-head plain output, priority 5); on the CPU engine the packed GEMM and the depthwise kernel on
    bfyx compete with the blocked ones."""
    return fast_blocked_for(node_params(program, node))


BFYX_IN_PLACE = True
"""Off: :func:`fast_blocked_for` tries a bfyx input in the blocked format only (A/B measurements; read when a
Program is built)."""


def fast_blocked_for(p: Params) -> str | None:
    """:func:`fast_blocked_kernel` of a node's Params ``p`` (changed in place to the blocked layouts). A bfyx input
    is tried as it is too, and kept where a better kernel reads it in place (``ReorderInputs._reads_plain``): a first
    layer of 3 channels, which the CPU engine's blocked kernel refuses in the blocked format (idle lanes)."""
    x = p.inputs[0]
    plain = best_plain_kernel(p) if not x.format.is_blocked else None
    # a residual sum of the output's shape is read blocked too (passes/blocked_regions.reads_as_operand)
    p.fused_ops = [dataclasses.replace(op, extra_inputs=[op.extra_inputs[0].with_(format=BLOCKED, padding=Padding())])
                   if op.kind == "eltwise" and len(op.extra_inputs) == 1 and op.extra_inputs[0].rank == 4
                   and op.extra_inputs[0].dims4 == p.output.dims4 else op for op in p.fused_ops]
    p.inputs = [x.with_(format=BLOCKED, padding=Padding()),
                p.inputs[1].with_(format=PACKED_WEIGHTS)] + p.inputs[2:]
    p.output = p.output.with_(format=BLOCKED)
    blocked = best_fast_kernel(p)
    if x.format == Format.bfyx and BFYX_IN_PLACE:
        in_place = best_fast_kernel(dataclasses.replace(p, inputs=[x] + p.inputs[1:]))
        if in_place is not None and (blocked is None or in_place[0] < blocked[0]):
            blocked = in_place
    if blocked is None or (plain is not None and plain[0] <= blocked[0]):
        return None
    return blocked[1]
