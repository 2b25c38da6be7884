"""Helpers shared by the fusion rules."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...primitives import Data
from ...program_graph import ProgramGraph
from ...program_node import ProgramNode

FUSABLE_HOSTS = ("convolution", "fully_connected", "eltwise", "pooling", "batch_norm")


def sole_user(node: ProgramNode) -> ProgramNode | None:
    """The only user of ``node`` when it has exactly one and is not a network output."""
    users = {id(u): u for u in node.users}
    if len(users) != 1 or node.is_output:
        return None
    return next(iter(users.values()))


def can_host(program: ProgramGraph, node: ProgramNode, kinds: tuple[str, ...] = FUSABLE_HOSTS) -> bool:
    """A node of one of ``kinds`` whose kernel can apply fused ops in its epilogue: not constant, kernel not forced
    by the user."""
    if node.kind not in kinds or node.constant or node.id in program.forced_impls:
        return False
    return node.output_layout is None or node.output_layout.dtype.value == "f32"


def new_data(program: ProgramGraph, user: ProgramNode, pid: str, values: Any) -> ProgramNode:
    """A new f32 Data node read by ``user`` (folded weights or statistics); ``pid`` gets ``_`` until unique."""
    while pid in program.nodes:
        pid += "_"
    node = ProgramNode(Data(pid, np.asarray(values, dtype=np.float32)), constant=True, optimized_out=True,
                       users=[user])
    node.output_layout = node.primitive.calc_output_layout([])
    program.nodes[pid] = node
    return node


def per_channel(node: ProgramNode, c: int, rank: int) -> np.ndarray | None:
    """The values of a Data node holding one value per channel of a rank-``rank`` tensor with ``c`` channels (shape
    (c,), (c, 1, 1), (1, c, 1, 1) ... as numpy broadcasting aligns it), flattened to float64; None for any other
    node or shape."""
    if node.kind != "data":
        return None
    a = node.primitive.array  # type: ignore[attr-defined]
    shape = tuple(a.shape)
    full = (1,) * (rank - len(shape)) + shape  # numpy broadcasting aligns trailing dimensions
    if a.size != c or len(full) != rank or full[1] != c:
        return None
    return a.reshape(-1).astype(np.float64)


def fuse_eltwise_into(program: ProgramGraph, elt: ProgramNode, host: ProgramNode, other: ProgramNode) -> None:
    """Make ``elt`` (an eltwise of ``host`` and ``other``) a fused eltwise of ``host``'s epilogue: ``host`` reads
    ``other`` as its last dependency, ``elt``'s own fused activations follow it, and ``elt`` is fused away."""
    from kernel_selector import FusedOp

    from ...ops import EltwiseAttrs, FusedEltwiseAttrs

    a = elt.primitive.attrs()
    assert isinstance(a, EltwiseAttrs)
    host.fused_ops.append(FusedOp("eltwise", FusedEltwiseAttrs(a.mode.value), dep_indices=[len(host.dependencies)],
                                  fused_id=elt.id))
    host.fused_ops.extend(elt.fused_ops)
    host.dependencies.append(other)
    other.users = [u for u in other.users if u is not elt] + [host]
    elt.dependencies = [host]
    program.fuse(elt, host)
