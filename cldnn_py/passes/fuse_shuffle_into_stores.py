"""fuse_shuffle_into_stores: on the OpenCL engine, a channel shuffle becomes the last fused op of the convolution
that produces its input, whose kernel then stores each output channel at its shuffled position.

Why: ShuffleNet's units run grouped 1×1 convolution → channel shuffle → depthwise 3×3; the shuffle is a pass over
the whole tensor that computes nothing (pip PoCL, ShuffleNet at batch 8: its 16 shuffle kernels took 3.5 of 21.4 ms
of device time). clDNN's GPU kernels reach the same end through the output layout; here the blocked convolution
(``convolution_b_fs_yx_fsv16``, SHUFFLE_GROUP) writes its 16 lanes of a pixel one by one to channel
(c mod C/G)·G + c div C/G; or, when the convolution reads at most PERMUTE_MAX_C input channels and its weights
and bias are constants of its own, its output channels are permuted into the shuffled order at build time, so
whole slices are still stored as vectors. The CPU engine has its own rule (passes/fusing/fuse_shuffle_channels.py,
which runs early and needs the convolution's groups equal to the shuffle's); this one runs late, after the formats
and the densified weights are known, because it asks the kernel_selector.

Conditions: the OpenCL engine; a shuffle_channels node whose only input is a convolution with no other user, not
a network output, not constant and not with a kernel forced by the user; only activations fused into the
convolution so far (an eltwise operand would be read in the unshuffled order); the same format, data type and
padding on both sides; and the convolution's best kernel (the selector's priority rules) the same with the shuffle
fused as without, so no fusion ever sends a layer to a slower kernel.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from kernel_selector import FusedOp

from ..kernel_params import best_kernel
from ..ops import ShuffleChannelsAttrs
from ..pass_manager import BasePass
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode, topological_order

ENABLED = True
"""False keeps every shuffle a kernel of its own (A/B measurements: ``benchmarks/switch_ab.py``)."""

PERMUTE_MAX_C = 32
"""A convolution with at most this many input channels and weights (and bias) that are constants read by nothing
else has its output channels permuted into the shuffled order instead (rows reordered at build time,
``block_diagonal`` dropped): its slices are then stored as whole vectors, for up to G times the multiply-adds of the
block-diagonal form, which costs little where K is this small and the layer is bound by its stores. ShuffleNet's
first unit (24 -> 112 channels at 56x56, 4 groups), isolated: batch 8 0.87-0.94 ms permuted against 1.27-1.49 ms
with scattered stores, batch 1 0.10 against 0.10-0.20 ms."""



def _host(program: ProgramGraph, node: ProgramNode) -> ProgramNode | None:
    """The convolution that can take ``node``'s shuffle (see the module docstring), or None."""
    if node.kind != "shuffle_channels" or len(node.dependencies) != 1 or node.id in program.forced_impls:
        return None
    conv = node.dependencies[0]
    if (conv.kind != "convolution" or conv.constant or conv.is_output or conv.id in program.forced_impls
            or any(u is not node for u in conv.users) or any(op.kind != "activation" for op in conv.fused_ops)):
        return None
    a, b = conv.layout(), node.layout()
    if a.format != b.format or a.dtype != b.dtype or a.padding != b.padding or a.shape != b.shape:
        return None
    return conv


def _constant_rows(node: ProgramNode) -> ProgramNode | None:
    """The Data node behind ``node`` (itself, or the Data a reorder with no other user reads), read by nothing else."""
    if node.kind == "reorder" and len(node.users) == 1 and len(node.dependencies) == 1:
        node = node.dependencies[0]
    return node if node.kind == "data" and len(node.users) == 1 else None


def _permute_outputs(program: ProgramGraph, conv: ProgramNode, group: int, kernel: str) -> bool:
    """Reorder ``conv``'s output channels into the shuffled order (PERMUTE_MAX_C): output channel o computes the
    convolution's channel (o mod G)·(OC / G) + o div G. True when done; nothing is changed otherwise (more input
    channels, groups, weights or bias not constant and unshared, or another best kernel for the dense form)."""
    c = conv.dependencies[0].layout().shape[1]
    oc = conv.layout().shape[1]
    if c > PERMUTE_MAX_C or getattr(conv.primitive, "groups", 1) != 1:
        return False
    rows = [_constant_rows(d) for d in conv.dependencies[1:3]]
    if any(r is None or r.primitive.array.shape[0] != oc for r in rows):  # type: ignore[attr-defined]
        return False
    saved = conv.primitive
    conv.primitive = dataclasses.replace(conv.primitive, block_diagonal=1)  # type: ignore[call-arg]
    if best_kernel(program, conv) != kernel:
        conv.primitive = saved
        return False
    src = np.array([(o % group) * (oc // group) + o // group for o in range(oc)])
    for r in rows:
        assert r is not None
        rows_src = np.ascontiguousarray(r.primitive.array[src])  # type: ignore[attr-defined]
        r.primitive = dataclasses.replace(r.primitive, array=rows_src)  # type: ignore[call-arg]
    return True


class FuseShuffleIntoStores(BasePass):
    """Folds channel shuffles into the stores of the convolutions before them (OpenCL engine)."""

    name = "fuse_shuffle_into_stores"

    def run(self, program: ProgramGraph) -> None:
        """Each shuffle in order; see the module docstring for the rule."""
        if not ENABLED or program.engine.kind != "ocl":
            return
        changed = False
        for node in list(program.order):
            self.node = node.id
            conv = _host(program, node)
            if conv is None:
                continue
            before = best_kernel(program, conv)
            a = node.primitive.attrs()
            assert isinstance(a, ShuffleChannelsAttrs)
            if before is not None and _permute_outputs(program, conv, a.group, before):
                program.fuse(node, conv)
                changed = True
                continue
            conv.fused_ops.append(FusedOp("shuffle_channels", a, fused_id=node.id))
            if before is None or best_kernel(program, conv) != before:
                conv.fused_ops.pop()
                continue
            program.fuse(node, conv)
            changed = True
        if changed:
            program.order = topological_order(program.nodes)
