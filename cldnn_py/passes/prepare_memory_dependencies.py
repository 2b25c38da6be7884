"""prepare_memory_dependencies: the memory pool plan. Activations whose lifetimes do not overlap share a buffer.

Why: a deep network holds only a few tensors alive at a time; giving each its own buffer wastes memory and cache.
Lifetime of a node's output: from its position in execution order to the last position of a user (outputs have
buffers of their own). Assignment is "greedy by size" (as TensorFlow Lite's arena planner): tensors largest first,
each into the first buffer whose tensors all live at other times; a node never shares with its own inputs. Padded and
partially-filled blocked tensors (whose zero halo or zero block tail kernels rely on) share a buffer only with
tensors of the very same layout (each wrote only the same interior, so the zeros stay): the "strict" plan, which
needs no zero fill per run (PoCL's clEnqueueFillBuffer runs at about 2 GB/s: ShuffleNet b1 spent 3 of 6.7 ms in 18
fills). When the strict plan needs more than STRICT_EXTRA_BYTES (or twice the memory) over the "mixed" plan, the
mixed one is used: any free buffer, zero-filled before the node runs when the previous owner had another layout
(``memory_zero``).

On an out-of-order queue, reuse is a write-after-read hazard: ``program.memory_deps[id]`` lists the nodes (the
previous owner of the buffer and its readers) whose kernels must finish before this node writes; the Network adds
their events to the wait list.
"""

from __future__ import annotations

import bisect

from ..layout import Layout
from ..pass_manager import BasePass
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode


def _poolable(node: ProgramNode, viewed: set[str]) -> bool:
    if node.optimized_out or node.kind in ("data", "input_layout") or node.is_output or node.constant:
        return False
    # in-place concat buffers, views and the tensors they view live by other rules
    return node.buffer_of is None and not node.in_place and node.id not in viewed


def _strict_key(node: ProgramNode) -> Layout | None:
    """The layout a buffer must keep for this node (zero halo / zero block tail), or None for any buffer."""
    lay = node.layout()
    blk = lay.format.block
    if not lay.padding.is_zero or (blk is not None and lay.dims4["bfyx".index(blk[0])] % blk[1]):
        return lay
    return None


STRICT_EXTRA_BYTES = 64 << 20
STRICT_EXTRA_FACTOR = 1.0
"""The strict plan (no zero fills) is kept while it costs at most STRICT_EXTRA_BYTES, or STRICT_EXTRA_FACTOR times
the mixed plan's size, more than the mixed plan."""


def _plan(pooled: list[ProgramNode], pos: dict[str, int], last_use: dict[str, int],
          strict: bool) -> tuple[list[list[ProgramNode]], list[int]]:
    """Greedy first-fit of ``pooled`` (largest first) into buffers: (owners per buffer, bytes per buffer). ``strict``:
    a buffer only ever holds tensors of one strict layout (:func:`_strict_key`), or only tensors without one.

    The lifetimes in one buffer are disjoint, so each buffer keeps them sorted by start and a new lifetime [a, b]
    fits when the one starting last at or before b ended before a: a bisection, not a scan of every owner (a chain of
    10,000 nodes planned in O(n^2) took over a minute)."""
    slots: list[list[ProgramNode]] = []
    slot_bytes: list[int] = []
    keys: list[Layout | None] = []
    starts: list[list[int]] = []  # per buffer: its owners' first positions, sorted
    ends: list[list[int]] = []  # the matching last uses (sorted too: the lifetimes are disjoint)
    for node in pooled:
        a, b = pos[node.id], last_use[node.id]
        key = _strict_key(node) if strict else None
        for k, owners in enumerate(slots):
            if keys[k] != key:
                continue
            i = bisect.bisect_right(starts[k], b)
            if i == 0 or ends[k][i - 1] < a:
                owners.append(node)
                starts[k].insert(i, a)
                ends[k].insert(i, b)
                break
        else:
            slots.append([node])
            slot_bytes.append(node.layout().bytes)
            keys.append(key)
            starts.append([a])
            ends.append([b])
    return slots, slot_bytes


class PrepareMemoryDependencies(BasePass):
    """Fills ``program.memory_slots`` {id: slot}, ``program.slot_bytes``, ``program.memory_deps`` and
    ``program.memory_zero`` (nodes whose reused buffer is zero-filled first)."""

    name = "prepare_memory_dependencies"

    def run(self, program: ProgramGraph) -> None:
        """Greedy by size: largest tensors first, each into the first buffer none of whose tensors' lifetimes
        overlap its own (lifetimes are inclusive, so a node never shares with its own inputs)."""
        pos = {n.id: i for i, n in enumerate(program.order)}
        last_use = {n.id: max([pos[u.id] for u in n.users], default=pos[n.id]) for n in program.order}
        viewed = {n.buffer_of for n in program.order if n.buffer_of is not None}
        pooled = [n for n in program.order if _poolable(n, viewed)]
        pooled.sort(key=lambda n: (-n.layout().bytes, pos[n.id]))
        slots, slot_bytes = _plan(pooled, pos, last_use, strict=True)
        mixed, mixed_bytes = _plan(pooled, pos, last_use, strict=False)
        extra = sum(slot_bytes) - sum(mixed_bytes)
        if extra > STRICT_EXTRA_BYTES and extra > STRICT_EXTRA_FACTOR * sum(mixed_bytes):
            slots, slot_bytes = mixed, mixed_bytes
        program.memory_slots = {n.id: k for k, owners in enumerate(slots) for n in owners}
        program.memory_deps = {}
        program.memory_zero = set()
        for owners in slots:
            owners.sort(key=lambda n: pos[n.id])
            for prev, node in zip(owners, owners[1:]):
                program.memory_deps[node.id] = [prev.id] + [u.id for u in prev.users]
                key = _strict_key(node)
                if key is not None and prev.layout() != key:
                    program.memory_zero.add(node.id)
            first, last = owners[0], owners[-1]  # the next execution's first owner follows this one's last
            if first is not last and _strict_key(first) is not None and last.layout() != first.layout():
                program.memory_zero.add(first.id)
        program.slot_bytes = slot_bytes
