"""fuse_pool_into_conv: on the CPU engine, a max pooling becomes the last fused op of the convolution that produces
its input; the convolution's kernel pools bands of its output rows while they are in L2 and writes only the pooled
tensor (``kernel_selector/kernels/convolution/cpu_conv_pool.py``).

Why: the stem of most CNNs is convolution → ReLU → max pooling, and the convolution's output is the network's
largest tensor (64 × 112² floats per image; 25 MB at batch 8, the machine's whole L3), written once and read once
by the pooling. SqueezeNet at batch 8 on the 2-core Zen 5 VM spent 3.4 ms in its first convolution and pooling
against 1.4 ms for the same work image by image (``benchmarks/switch_ab.py
cldnn_py.passes.fuse_pool_into_conv.ENABLED False`` measures the fusion).

Conditions: the CPU engine; a pooling node whose only input is a convolution of at least MIN_BYTES of output
with no other user, not a network output, not constant and with no kernel forced by the user; only activations
fused into the convolution so far and nothing fused into the pooling; the pooling's output bfyx f32; and
``convolution_cpu_packed`` the convolution's best kernel both before and with the pooling fused (its rule,
``cpu_conv_pool.fused_pool_reason`` and the channel-vector row-tile form). The fused node keeps the convolution's
id, takes the pooling's output layout, and the pooling's id resolves to it (``ProgramGraph.fuse``). Runs after the
layouts are final (after remove_redundant_reorders) and before prepare_padding, which may then pad the fused node's
output for its users (the pooled rows are stored at the output's pitches).
"""

from __future__ import annotations

from kernel_selector import FusedOp

from ..kernel_params import best_kernel
from ..layout import DataType, Format
from ..ops import PoolingAttrs
from ..pass_manager import BasePass
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode, topological_order

ENABLED = True
"""False keeps every pooling a kernel of its own (A/B measurements: ``benchmarks/switch_ab.py``); read at build time."""

MIN_BYTES = 0
"""... only where the convolution's output (the whole batch) is at least this large (0: any size; a switch for A/B
measurements). At batch 1, where the 3.2 MB stem outputs stay in the caches between two kernels, the fusion still
wins (2-core Zen 5 VM, 2026-12-08, paired per-node medians of 30 runs): ResNet-50's stem 0.756 + 0.130 ms (the
convolution, then the pooling's IR row kernel) against 0.831 fused, SqueezeNet's network 0.959× the time."""

KERNEL = "convolution_cpu_packed"
"""The convolution kernel that runs a fused pooling."""


def _host(program: ProgramGraph, node: ProgramNode) -> ProgramNode | None:
    """The convolution that can take ``node``'s pooling before the kernel check (see the module docstring), or
    None."""
    if node.kind != "pooling" or len(node.dependencies) != 1 or node.id in program.forced_impls or node.fused_ops:
        return None
    conv = node.dependencies[0]
    if (conv.kind != "convolution" or conv.constant or conv.is_output or conv.id in program.forced_impls
            or any(u is not node for u in conv.users) or any(op.kind != "activation" for op in conv.fused_ops)):
        return None
    out = node.layout()
    if conv.layout().bytes < MIN_BYTES:
        return None
    if out.format != Format.bfyx or out.dtype != DataType.f32 or conv.layout().format != Format.bfyx:
        return None
    return conv


class FusePoolIntoConv(BasePass):
    """Folds max poolings into the convolutions before them (CPU engine)."""

    name = "fuse_pool_into_conv"

    def run(self, program: ProgramGraph) -> None:
        """Each pooling in order; see the module docstring for the rule."""
        if not ENABLED or program.engine.kind != "cpu":
            return
        changed = False
        for node in list(program.order):
            self.node = node.id
            conv = _host(program, node)
            if conv is None or best_kernel(program, conv) != KERNEL:
                continue
            a = node.primitive.attrs()
            assert isinstance(a, PoolingAttrs)
            saved = conv.output_layout
            conv.fused_ops.append(FusedOp("pooling", a, fused_id=node.id))
            conv.output_layout = node.layout()
            if best_kernel(program, conv) != KERNEL:
                conv.fused_ops.pop()
                conv.output_layout = saved
                continue
            program.fuse(node, conv)
            changed = True
        if changed:
            program.order = topological_order(program.nodes)
