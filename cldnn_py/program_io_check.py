"""The checks a saved Program's graph passes before anything is allocated (``program_io.py``): a file that was
changed by hand, or written by a bug, must be refused rather than run out of bounds.

- every node's output layout is what its primitive computes from its dependencies' layouts (with the format and
  data type the passes forced and the padding they stored), as ``recompute_layouts`` does;
- users and dependencies mirror each other; outputs, removed hosts, memory-pool ids are nodes;
- every tensor fits the buffer it lives in: a pool slot, a buffer of its own, or (a view, an in-place concat input)
  its host's buffer;
- every constant has exactly its layout's bytes.
Each failure raises ProgramFileError naming the node and the expected against the actual value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import CldnnError, ProgramFileError
from .program_node import ProgramNode, with_fused_pooling


def check_graph(state: dict[str, Any], consts: dict[str, np.ndarray]) -> None:
    """Raise ProgramFileError unless the restored ``state`` (program_io's) is a consistent graph (module docstring)."""
    nodes: dict[str, ProgramNode] = state["nodes"]
    for node in state["order"]:
        _check_layout(node)
        for u in node.users:
            if node not in u.dependencies:
                raise ProgramFileError(f"node '{node.id}': user '{u.id}' does not depend on it")
        for d in node.dependencies:
            if node not in d.users:
                raise ProgramFileError(f"node '{node.id}': dependency '{d.id}' does not list it as a user")
        if node.kind == "data":
            raw = consts.get(node.id)
            if raw is None or raw.nbytes != node.layout().bytes:
                raise ProgramFileError(f"data '{node.id}': expected {node.layout().bytes} bytes, got "
                                       f"{None if raw is None else raw.nbytes}")
    for o in state["outputs"]:  # an output fused into another node (a bias add into its layer) resolves to it
        host, seen = o, set()
        while host not in nodes and host in state["removed"] and host not in seen:
            seen.add(host)
            host = state["removed"][host][1]
        if host not in nodes:
            raise ProgramFileError(f"output '{o}' is not a node" + (f" (it resolves to '{host}')" if seen else ""))
    for pid, (_, host) in state["removed"].items():
        if host and host not in nodes and host not in state["removed"]:
            raise ProgramFileError(f"removed primitive '{pid}': host '{host}' is not a node")
    _check_memory(state, nodes)


def _check_layout(node: ProgramNode) -> None:
    if node.kind == "data":
        return
    try:
        lay = with_fused_pooling(node.primitive.calc_output_layout([d.layout() for d in node.dependencies]),
                                 node.fused_ops)
    except (CldnnError, IndexError, ValueError, TypeError, AttributeError) as e:
        raise ProgramFileError(f"{node.kind} '{node.id}': its output layout cannot be computed from its "
                               f"dependencies: {e}") from None
    if node.forced_format is not None:
        lay = lay.with_(format=node.forced_format)
    if node.forced_dtype is not None:
        lay = lay.with_(dtype=node.forced_dtype)
    saved = node.layout()
    if lay.with_(padding=saved.padding) != saved:
        raise ProgramFileError(f"{node.kind} '{node.id}': layout: expected {lay} (from its dependencies), the file "
                               f"says {saved}")


def _check_memory(state: dict[str, Any], nodes: dict[str, ProgramNode]) -> None:
    slots: dict[str, int] = state["memory_slots"]
    sizes: list[int] = state["slot_bytes"]
    for pid, s in slots.items():
        if pid not in nodes or not 0 <= s < len(sizes):
            raise ProgramFileError(f"memory plan: '{pid}' -> slot {s}: not a node or no such slot "
                                   f"({len(sizes)} slots)")
    for pid, deps in state["memory_deps"].items():
        if pid not in nodes or any(d not in nodes for d in deps):
            raise ProgramFileError(f"memory plan: dependencies of '{pid}' name nodes that do not exist: {deps}")
    for pid in state["memory_zero"]:
        if pid not in nodes:
            raise ProgramFileError(f"memory plan: zero-filled '{pid}' is not a node")

    def capacity(node: ProgramNode, depth: int = 0) -> int:
        if depth > len(nodes):
            raise ProgramFileError(f"node '{node.id}': its buffer_of chain loops")
        if node.buffer_of is not None:
            host = nodes.get(node.buffer_of)
            if host is None:
                raise ProgramFileError(f"node '{node.id}': buffer_of '{node.buffer_of}' is not a node")
            return capacity(host, depth + 1)
        if node.id in slots:
            return sizes[slots[node.id]]
        return node.layout().bytes

    for node in state["order"]:
        need, have = node.layout().bytes, capacity(node)
        if need > have:
            raise ProgramFileError(f"node '{node.id}': its tensor needs {need} bytes, its buffer holds {have}")
