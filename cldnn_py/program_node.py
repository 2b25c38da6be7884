"""ProgramNode: the graph vertex at build time, and the graph-edit helpers passes use (clDNN ``program_node``).

A node holds its primitive, its dependencies and users (edges both ways), the output Layout computed by the
primitive's ``calc_output_layout``, fused ops, the selected implementation and flags:
``constant`` (all inputs constant), ``is_output`` (a network output), ``optimized_out`` (runs no kernel:
Data, InputLayout).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Any

from .layout import Layout
from .primitives.base import Primitive


@dataclass
class Impl:
    """The selected implementation of a node: kernel name and its enqueues (``ClKernelData`` or ``CpuKernelData``)."""

    kernel_name: str
    kernels: list[Any]
    variant: dict[str, int] = field(default_factory=dict)  # the tune variant ({}: the kernel's default)


@dataclass(eq=False)
class ProgramNode:
    """One primitive in the program graph. Identity equality: two nodes are equal only if they are the same."""

    primitive: Primitive
    dependencies: list[ProgramNode] = field(default_factory=list)
    users: list[ProgramNode] = field(default_factory=list)
    output_layout: Layout | None = None
    fused_ops: list[Any] = field(default_factory=list)
    impl: Impl | None = None
    constant: bool = False
    is_output: bool = False
    optimized_out: bool = False
    forced_format: Any = None  # a Format chosen by reorder_inputs; None keeps the primitive's own choice
    forced_dtype: Any = None  # a DataType chosen by convert_precision (f16 storage); None keeps the primitive's
    buffer_of: str | None = None  # prepare_buffer_fusing: this node's output lives in that node's buffer
    in_place: bool = False  # prepare_buffer_fusing: other nodes write into this node's buffer (in-place concat)

    @property
    def id(self) -> str:
        """The primitive id."""
        return self.primitive.id

    @property
    def kind(self) -> str:
        """The primitive type name (``convolution``, ``data`` ...)."""
        return self.primitive.type_name

    def layout(self) -> Layout:
        """The output layout; raises RuntimeError when graph_initializations has not run."""
        if self.output_layout is None:
            raise RuntimeError(f"node '{self.id}' has no output layout yet")
        return self.output_layout

    def __repr__(self) -> str:
        return f"<{self.kind} '{self.id}' {self.output_layout}>"


def remove_node(nodes: dict[str, ProgramNode], node: ProgramNode) -> None:
    """Detach ``node`` from its dependencies and users and drop it from ``nodes``."""
    for d in node.dependencies:
        d.users = [u for u in d.users if u is not node]
    for u in node.users:
        u.dependencies = [d for d in u.dependencies if d is not node]
    node.dependencies, node.users = [], []
    nodes.pop(node.id, None)


def with_fused_pooling(lay: Layout, fused_ops: list[Any]) -> Layout:
    """``lay`` (a node's own output layout) with the planes of a pooling fused into the node
    (passes/fuse_pool_into_conv.py: a FusedOp of kind ``pooling`` whose attrs are the PoolingAttrs) pooled."""
    for op in fused_ops:
        if op.kind == "pooling":
            oh, ow = op.attrs.output_hw(lay.shape[2], lay.shape[3])
            lay = lay.with_(shape=(*lay.shape[:2], oh, ow))
    return lay


def recompute_layouts(order: list[ProgramNode]) -> None:
    """Output layouts of every node from its dependencies, honouring ``forced_format`` and ``forced_dtype`` (keeps
    padding)."""
    for node in order:
        lay = with_fused_pooling(node.primitive.calc_output_layout([d.layout() for d in node.dependencies]),
                                 node.fused_ops)
        if node.forced_format is not None:
            lay = lay.with_(format=node.forced_format)
        if node.forced_dtype is not None:
            lay = lay.with_(dtype=node.forced_dtype)
        if node.output_layout is not None and not node.output_layout.padding.is_zero:
            lay = lay.with_(padding=node.output_layout.padding)
        node.output_layout = lay


def insert_between(nodes: dict[str, ProgramNode], dep: ProgramNode, user: ProgramNode,
                   prim: Primitive) -> ProgramNode:
    """Put a new node for ``prim`` (whose only input is ``dep``) on every edge dep → user; returns it.
    Its layout is computed from dep's; the caller recomputes the users' layouts."""
    node = ProgramNode(prim, dependencies=[dep], constant=dep.constant)
    node.output_layout = prim.calc_output_layout([dep.layout()])
    nodes[prim.id] = node
    dep.users = [u for u in dep.users if u is not user] + [node]
    node.users = [user]
    user.dependencies = [node if d is dep else d for d in user.dependencies]
    return node


def topological_order(nodes: dict[str, ProgramNode]) -> list[ProgramNode]:
    """Nodes with every dependency before its users; ties keep insertion order (stable, deterministic)."""
    indeg = {n.id: len({id(d) for d in n.dependencies}) for n in nodes.values()}
    pos = {nid: i for i, nid in enumerate(nodes)}
    ready = [(pos[n.id], n.id) for n in nodes.values() if indeg[n.id] == 0]
    heapq.heapify(ready)  # the ready node first in insertion order (a heap: sorting the list each time was O(n^2))
    order: list[ProgramNode] = []
    while ready:
        n = nodes[heapq.heappop(ready)[1]]
        order.append(n)
        for u in {id(u): u for u in n.users}.values():
            indeg[u.id] -= 1
            if indeg[u.id] == 0:
                heapq.heappush(ready, (pos[u.id], u.id))
    return order
