"""fold_channel_shuffle: a chain of Reshape/Permute nodes that only permutes the channels of a rank-4 tensor as a
channel shuffle does becomes one ShuffleChannels node.

Why: ONNX has no channel-shuffle operator, so ShuffleNet-style models export it as Reshape (N, G, C/G, H, W) ->
Transpose (0, 2, 1, 3, 4) -> Reshape (N, C, H, W), and the importer adds views around the rank-5 transpose. On the
blocked format that chain cost four kernels and two format conversions (ShuffleNet v1 b1 on PoCL: ~2 ms of 9 ms
device time); ShuffleChannels is one copy in the input's own format (clDNN ``shuffle_channels``; OpenVINO's
ShuffleChannelsFusion transformation finds the same pattern).

The chain is recognised by what it does, not by its exact ops: starting at each rank-4 node X, it follows the
single-user chain of reshape and permute nodes until one has X's shape again, pushes an index tensor of X's shape
through the chain in numpy, and folds when the result is X with its channels in shuffle order for some group G.
Intermediate nodes must have no other user and not be network outputs; the last node keeps its id.
"""

from __future__ import annotations

import numpy as np

from ..ops import PermuteAttrs
from ..pass_manager import BasePass
from ..primitives import ShuffleChannels
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode, remove_node, topological_order

SHAPE_OPS = ("reshape", "permute")
MAX_CHAIN = 6
"""Reshape/permute nodes followed from X at most (the importer's form of the pattern has five)."""
MAX_ELEMENTS = 1 << 24
"""Tensors above this many elements are not simulated (the index tensor would take too long to build)."""


def shuffle_group(perm: np.ndarray) -> int | None:
    """G when ``perm`` (output channel -> input channel) is the channel shuffle with 1 < G < C groups (G = C is the
    identity), else None."""
    c = len(perm)
    if c < 2 or perm[0] != 0 or perm[1] == 0 or c % int(perm[1]):
        return None
    g = c // int(perm[1])
    want = (np.arange(c) % g) * (c // g) + np.arange(c) // g
    return g if 1 < g < c and np.array_equal(perm, want) else None


def chain_from(node: ProgramNode) -> list[ProgramNode]:
    """The reshape/permute nodes after ``node`` (each the only user of the one before, none an output but the last)
    up to the first whose shape is ``node``'s again; [] when there is none."""
    shape = node.layout().shape
    chain: list[ProgramNode] = []
    cur = node
    while len(chain) < MAX_CHAIN:
        users = {id(u): u for u in cur.users}
        if len(users) != 1 or (cur is not node and cur.is_output):
            return []
        nxt = next(iter(users.values()))
        if nxt.kind not in SHAPE_OPS:
            return []
        chain.append(nxt)
        if nxt.layout().shape == shape:
            return chain if len(chain) >= 2 else []
        cur = nxt
    return []


def channel_permutation(shape: tuple[int, ...], chain: list[ProgramNode]) -> np.ndarray | None:
    """Output channel -> input channel when pushing a (N, C, H, W) index tensor through ``chain`` only permutes
    channels, else None."""
    n, c, h, w = shape
    base = np.arange(n * c * h * w, dtype=np.int64).reshape(shape)
    t = base
    for node in chain:
        if node.kind == "permute":
            a = node.primitive.attrs()
            assert isinstance(a, PermuteAttrs)
            t = t.transpose(a.order)
        else:
            t = t.reshape(node.layout().shape)
    t = t.reshape(shape)
    perm = t[0, :, 0, 0] // (h * w) if n else None
    if perm is None or not np.array_equal(t, base[:, perm]):
        return None
    return perm


class FoldChannelShuffle(BasePass):
    """Replaces channel-shuffle chains of reshape/permute nodes by ShuffleChannels."""

    name = "fold_channel_shuffle"

    def run(self, program: ProgramGraph) -> None:
        """Every rank-4 node in order; see the module docstring."""
        for x in list(program.order):
            if program.nodes.get(x.id) is not x or x.constant or x.kind == "data":
                continue
            self.node = x.id
            lay = x.layout()
            if lay.rank != 4 or lay.count() > MAX_ELEMENTS:
                continue
            chain = chain_from(x)
            if not chain or any(n.id in program.forced_impls for n in chain):
                continue
            perm = channel_permutation(lay.shape, chain)
            group = shuffle_group(perm) if perm is not None else None
            if group is None:
                continue
            last = chain[-1]
            first = chain[0]
            for mid in chain[:-1]:
                program.removed[mid.id] = (mid.kind, "")  # OPTIMIZED_OUT in profiling
                remove_node(program.nodes, mid)
            x.users = [u for u in x.users if u is not first] + [last]
            last.dependencies = [x]
            last.primitive = ShuffleChannels(last.id, x.id, group=group)
            last.output_layout = last.primitive.calc_output_layout([lay])
        program.order = topological_order(program.nodes)
