"""Fold an activation into the kernel of its producer (convolution, fully connected, eltwise, pooling, batch_norm,
or another activation), applied in the epilogue.

The producer must have the activation as its only user. The activation's users then read the producer; the
activation's id resolves to the producer, and profiling shows it as FUSED. An activation after a reshape of the
producer (the reshape its only user, the activation the reshape's only user) fuses the same way, and its users read
the reshape: an element-wise function commutes with a reshape (a transformer's linear layer is imported as
FullyConnected → Reshape, then GELU).
"""

from __future__ import annotations

from kernel_selector import FusedOp

from ...ops import ActivationAttrs, FusedActivationAttrs
from ...program_graph import ProgramGraph
from ...program_node import ProgramNode
from .common import FUSABLE_HOSTS, can_host, sole_user

ACTIVATION_HOSTS = (*FUSABLE_HOSTS, "activation")
"""An activation also fuses into another activation (every activation kernel applies fused ops after its own
function): a chain of them, such as the four of a fake quantization on a tensor read twice, is one kernel."""


def fuse_activation(program: ProgramGraph, act: ProgramNode) -> bool:
    """Apply the rule to ``act``; True when it fused."""
    if act.kind != "activation" or len(act.dependencies) != 1:
        return False
    host = view = act.dependencies[0]
    if host.kind == "reshape" and len(host.dependencies) == 1 and sole_user(host) is act:
        host = host.dependencies[0]
    if not can_host(program, host, ACTIVATION_HOSTS) or sole_user(host) is not (act if view is host else view):
        return False
    if host.output_layout is not None and act.output_layout is not None and \
            host.output_layout.dtype != act.output_layout.dtype:
        return False
    a = act.primitive.attrs()
    assert isinstance(a, ActivationAttrs)
    host.fused_ops.append(FusedOp("activation", FusedActivationAttrs(a.func.value, a.a, a.b),
                                  fused_id=act.id))
    program.fuse(act, view)
    return True
