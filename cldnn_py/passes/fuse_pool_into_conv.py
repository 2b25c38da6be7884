"""fuse_pool_into_conv: on the CPU engine, a max or average pooling becomes the last fused op of the convolution
that produces its input; the convolution's kernel pools bands of its output rows while they are in L2 and writes
only the pooled tensor (``kernel_selector/kernels/convolution/cpu_conv_pool.py``).

Why: the stem of most CNNs is convolution → ReLU → max pooling, and the convolution's output is the network's
largest tensor (64 × 112² floats per image; 25 MB at batch 8, the machine's whole L3), written once and read once
by the pooling. SqueezeNet at batch 8 on the 2-core Zen 5 VM spent 3.4 ms in its first convolution and pooling
against 1.4 ms for the same work image by image (``benchmarks/switch_ab.py
cldnn_py.passes.fuse_pool_into_conv.ENABLED False`` measures the fusion).

A pooling of a feature concatenation whose inputs are all such convolutions, each read only by it, goes into every
one of them (THROUGH_CONCAT: pool(concat(a, b)) = concat(pool(a), pool(b)); the concatenation then joins the pooled
slices, in place after prepare_buffer_fusing), all or none.

Conditions: the CPU engine; a pooling node whose only input is a convolution of at least MIN_BYTES of output with no
other user, not a network output, not constant and with no kernel forced by the user; only activations fused into
the convolution so far and nothing fused into the pooling; the pooling's output f32 bfyx or b_fs_yx_fsv16, the
convolution's (and a concatenation's) the same; and the convolution's best kernel both before and with the pooling
fused ``convolution_cpu_packed`` for bfyx (its rule, ``cpu_conv_pool.fused_pool_reason`` and the channel-vector
row-tile form) or ``convolution_cpu_oc_blocked`` for b_fs_yx_fsv16 (``cpu_conv_pool_blocked.py``). The fused node keeps
the convolution's id, takes the pooling's output layout, and the pooling's id resolves to it
(``ProgramGraph.fuse``). Runs after the layouts are final (after remove_redundant_reorders) and before
prepare_padding, which may then pad the fused node's output for its users (the pooled rows are stored at the
output's pitches).
"""

from __future__ import annotations

from kernel_selector import FusedOp

from ..kernel_params import best_kernel
from ..layout import DataType, Format
from ..ops import PoolingAttrs
from ..pass_manager import BasePass
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode, topological_order, with_fused_pooling

ENABLED = True
"""False keeps every pooling a kernel of its own (A/B measurements: ``benchmarks/switch_ab.py``); read at build time."""

MIN_BYTES = 0
"""... only where the convolution's output (the whole batch) is at least this large (0: any size; a switch for A/B
measurements). At batch 1, where the 3.2 MB stem outputs stay in the caches between two kernels, the fusion still
wins (2-core Zen 5 VM, 2026-12-08, paired per-node medians of 30 runs): ResNet-50's stem 0.756 + 0.130 ms (the
convolution, then the pooling's IR row kernel) against 0.831 fused, SqueezeNet's network 0.959× the time."""

THROUGH_CONCAT = True
"""A pooling of a feature concatenation of convolutions goes into each of them (pool(concat(a, b)) = concat(pool(a),
pool(b))); False: only a pooling right after a convolution."""

KERNELS = {"convolution_cpu_packed": Format.bfyx, "convolution_cpu_oc_blocked": Format.b_fs_yx_fsv16}
"""The convolution kernels that run a fused pooling, each with the format of its convolution and pooled outputs
(``cpu_conv_pool.py``; ``cpu_conv_pool_blocked.py``)."""
FORMATS = frozenset(KERNELS.values())


def _takes(program: ProgramGraph, conv: ProgramNode, user: ProgramNode) -> bool:
    """Whether ``conv`` may carry a pooling of its output before the kernel check: a convolution read only by
    ``user``, not an output, not constant, no forced kernel, activations only fused, an output of at least
    MIN_BYTES in the format of ``user``'s."""
    return (conv.kind == "convolution" and not conv.constant and not conv.is_output
            and conv.id not in program.forced_impls and all(u is user for u in conv.users)
            and all(op.kind == "activation" for op in conv.fused_ops) and conv.layout().format == user.layout().format
            and conv.layout().bytes >= MIN_BYTES)


def _hosts(program: ProgramGraph, node: ProgramNode) -> list[ProgramNode]:
    """The convolutions that can take ``node``'s pooling before the kernel check (see the module docstring): the one
    before it, or every input of a feature concatenation before it (pooling commutes with concatenating channels:
    each convolution then pools its own slice, SqueezeNet's fire and GoogLeNet's inception outputs); [] when none."""
    if node.kind != "pooling" or len(node.dependencies) != 1 or node.id in program.forced_impls or node.fused_ops:
        return []
    out = node.layout()
    if out.format not in FORMATS or out.dtype != DataType.f32:
        return []
    src = node.dependencies[0]
    if _takes(program, src, node):
        return [src]
    if (THROUGH_CONCAT and src.kind == "concatenation" and not src.is_output and not src.fused_ops
            and all(u is node for u in src.users) and src.id not in program.forced_impls
            and getattr(src.primitive.attrs(), "axis", None) == 1 and src.layout().format == out.format
            and len({id(d) for d in src.dependencies}) == len(src.dependencies)
            and all(_takes(program, d, src) for d in src.dependencies)):
        return list(src.dependencies)
    return []


def _fuse_all(program: ProgramGraph, convs: list[ProgramNode], node: ProgramNode, a: PoolingAttrs) -> bool:
    """Append the pooling to every convolution of ``convs`` with its pooled output layout, keeping each only if its
    best kernel, before and after, is the KERNELS entry of the pooling's format; all or none (True when all)."""
    kernel = next(k for k, f in KERNELS.items() if f == node.layout().format)
    if any(best_kernel(program, c) != kernel for c in convs):
        return False
    saved = [c.output_layout for c in convs]
    for c in convs:
        c.fused_ops.append(FusedOp("pooling", a, fused_id=node.id))
        c.output_layout = with_fused_pooling(c.layout(), c.fused_ops[-1:])
    if all(best_kernel(program, c) == kernel for c in convs):
        return True
    for c, lay in zip(convs, saved):
        c.fused_ops.pop()
        c.output_layout = lay
    return False


class FusePoolIntoConv(BasePass):
    """Folds max and average poolings into the convolutions before them (CPU engine)."""

    name = "fuse_pool_into_conv"

    def run(self, program: ProgramGraph) -> None:
        """Each pooling in order; see the module docstring for the rule."""
        if not ENABLED or program.engine.kind != "cpu":
            return
        changed = False
        for node in list(program.order):
            self.node = node.id
            convs = _hosts(program, node)
            a = node.primitive.attrs()
            if not convs or not isinstance(a, PoolingAttrs) or not _fuse_all(program, convs, node, a):
                continue
            src = node.dependencies[0]
            if src.kind == "concatenation":  # the concatenation now joins the pooled slices
                src.output_layout = src.primitive.calc_output_layout([d.layout() for d in src.dependencies])
            program.fuse(node, src)
            changed = True
        if changed:
            program.order = topological_order(program.nodes)
