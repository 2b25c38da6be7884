"""Fold a channel shuffle into the grouped convolution that produces its input, on the CPU engine: the convolution
writes each output channel straight to its shuffled position (``convolution_cpu_packed``), and the shuffle's copy
of the whole tensor disappears.

Why: ShuffleNet's units are grouped 1×1 convolution → shuffle → depthwise → grouped 1×1; the shuffle is a pure
copy of the tensor (15 of them were 8% of ShuffleNet's time at batch 8 on the CPU engine). With the shuffle's groups
equal to the convolution's, the channels of one convolution group land G apart, so a tile of the group's output
rows is stored with a row pitch G times the plane (the permutation clDNN's GPU kernels express through a blocked
output layout; here a kernel argument). Conditions: the CPU engine (its packed GEMM is the kernel that takes the fused
shuffle), a grouped convolution whose only user is the shuffle, shuffle groups = convolution groups > 1, and no
fused eltwise on the convolution (its operand would be read in the unshuffled order). The rule runs last, so
nothing fuses after the shuffle.
"""

from __future__ import annotations

from kernel_selector import FusedOp

from ...ops import ConvolutionAttrs, ShuffleChannelsAttrs
from ...program_graph import ProgramGraph
from ...program_node import ProgramNode
from .common import can_host, sole_user

ENABLED = True
"""False keeps every shuffle a kernel of its own (A/B measurements: ``benchmarks/switch_ab.py``)."""


def fuse_shuffle_channels(program: ProgramGraph, node: ProgramNode) -> bool:
    """Apply the rule to ``node``; True when it fused."""
    if not ENABLED or node.kind != "shuffle_channels" or program.engine.kind != "cpu" or len(node.dependencies) != 1:
        return False
    host = node.dependencies[0]
    if not can_host(program, host, ("convolution",)) or sole_user(host) is not node:
        return False
    a, conv = node.primitive.attrs(), host.primitive.attrs()
    assert isinstance(a, ShuffleChannelsAttrs) and isinstance(conv, ConvolutionAttrs)
    if a.group < 2 or int(conv.groups) != a.group or any(op.kind != "activation" for op in host.fused_ops):
        return False
    host.fused_ops.append(FusedOp("shuffle_channels", a, fused_id=node.id))
    program.fuse(node, host)
    return True
