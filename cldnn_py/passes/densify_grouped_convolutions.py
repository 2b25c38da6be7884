"""densify_grouped_convolutions: a grouped convolution that no fast kernel takes becomes a dense one.

Why: the blocked convolution kernels take groups whose channels fill whole 16-channel slices, and depthwise ones;
ShuffleNet's grouped 1x1 convolutions (groups 3-8, e.g. 136 -> 136 channels in 4 groups of 34) fit neither and
fall to ``convolution_ref``, ~2 GFLOP/s against 100+ for the blocked kernel. A grouped convolution equals a dense
one whose weights are block-diagonal (zero where the input channel is outside the output channel's group): G
times the multiply-adds, at 50x the rate. So when the selector has no fast kernel for the grouped node, groups G <=
MAX_GROUPS and the dense form has a fast blocked kernel, the weights (constant Data) are expanded to (OC, IC, KH,
KW) and the node's groups set to 1. The choice is made by asking the kernel_selector (kernel_params), so a device
or engine whose kernels take the grouped shape keeps it. (OpenVINO reaches the same end differently: its oneDNN
and clDNN grouped kernels pad every group to the block size.)
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..kernel_params import best_fast_kernel, fast_blocked_for, node_params
from ..ops import ConvolutionAttrs
from ..pass_manager import BasePass
from ..primitives import Data
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode, topological_order

MAX_GROUPS = 8
"""Densify only up to this many groups: the dense form costs G times the multiply-adds and weight bytes."""


def dense_weights(w: np.ndarray, groups: int) -> np.ndarray:
    """(OC, IC/G, KH, KW) grouped weights → (OC, IC, KH, KW) block-diagonal dense weights (zeros off the groups)."""
    oc, icg = w.shape[:2]
    ocg = oc // groups
    out = np.zeros((oc, icg * groups) + w.shape[2:], dtype=w.dtype)
    for g in range(groups):
        out[g * ocg:(g + 1) * ocg, g * icg:(g + 1) * icg] = w[g * ocg:(g + 1) * ocg]
    return out


class DensifyGroupedConvolutions(BasePass):
    """Rewrites slow grouped convolutions (groups 2..MAX_GROUPS, not depthwise) with constant weights as dense."""

    name = "densify_grouped_convolutions"

    def run(self, program: ProgramGraph) -> None:
        """Each convolution in order; see the module docstring for the rule."""
        for node in list(program.order):
            self.node = node.id
            if self._wants_dense(program, node):
                self._densify(program, node)
        program.order = topological_order(program.nodes)

    @staticmethod
    def _wants_dense(program: ProgramGraph, node: ProgramNode) -> bool:
        if node.kind != "convolution" or node.id in program.forced_impls or node.constant:
            return False
        a = node.primitive.attrs()
        w = node.dependencies[1]
        if not isinstance(a, ConvolutionAttrs) or not 1 < a.groups <= MAX_GROUPS or w.kind != "data" \
                or w.layout().rank != 4 or node.dependencies[0].layout().rank != 4:
            return False
        p = node_params(program, node)
        if p.inputs[1].shape[1] == 1 and p.inputs[1].shape[0] == p.inputs[0].shape[1]:
            return False  # depthwise: the blocked kernel has its own path
        if best_fast_kernel(p) is not None or fast_blocked_for(node_params(program, node)) is not None:
            return False
        oc, icg, kh, kw = p.inputs[1].shape
        p.attrs = dataclasses.replace(a, groups=1)
        p.inputs[1] = p.inputs[1].with_(shape=(oc, icg * a.groups, kh, kw))
        return fast_blocked_for(p) is not None

    @staticmethod
    def _densify(program: ProgramGraph, node: ProgramNode) -> None:
        w = node.dependencies[1]
        groups = node.primitive.attrs().groups  # type: ignore[attr-defined]
        pid = f"{w.id}__dense"
        while pid in program.nodes:
            pid += "_"
        dense = ProgramNode(Data(pid, dense_weights(w.primitive.array, groups)),  # type: ignore[attr-defined]
                            constant=True, optimized_out=True, users=[node])
        dense.output_layout = dense.primitive.calc_output_layout([])
        program.nodes[pid] = dense
        w.users = [u for u in w.users if u is not node]
        if not w.users and not w.is_output:
            program.removed[w.id] = (w.kind, "")
            del program.nodes[w.id]
        node.dependencies[1] = dense
        node.primitive = dataclasses.replace(node.primitive, weights=pid, groups=1,  # type: ignore[call-arg]
                                             block_diagonal=groups)
