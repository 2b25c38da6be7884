"""prepare_memory_dependencies: the memory pool plan. Activations whose lifetimes do not overlap share a buffer.

Why: a deep network holds only a few tensors alive at a time; giving each its own buffer wastes memory and cache.
Lifetime of a node's output: from its position in execution order to the last position of a user (outputs live
to the end). Greedy best fit in execution order (as clDNN's memory_pool reuses by size): a buffer is free again
after the last reader of its tensor; a node never reuses a buffer one of its own inputs is in. Padded and
partially-filled blocked tensors (whose zero halo or zero block tail kernels rely on) may take any buffer too:
when the previous owner had another layout, the buffer is zero-filled before the node runs (``memory_zero``); an
owner of the very same layout wrote only the same interior, so its zeros are still there.

On an out-of-order queue, reuse is a write-after-read hazard: ``program.memory_deps[id]`` lists the nodes (the
previous owner of the buffer and its readers) whose kernels must finish before this node writes; the Network adds
their events to the wait list.
"""

from __future__ import annotations

from ..layout import Layout
from ..pass_manager import BasePass
from ..program import ProgramBuilder
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


class PrepareMemoryDependencies(BasePass):
    """Fills ``program.memory_slots`` {id: slot}, ``program.slot_bytes``, ``program.memory_deps`` and
    ``program.memory_zero`` (nodes whose reused buffer is zero-filled first)."""

    name = "prepare_memory_dependencies"

    def run(self, program: ProgramBuilder) -> None:
        """Greedy best-fit assignment of buffers in execution order."""
        pos = {n.id: i for i, n in enumerate(program.order)}
        last_use = {n.id: max([pos[u.id] for u in n.users], default=pos[n.id]) for n in program.order}
        free: list[int] = []
        owner_history: dict[int, list[ProgramNode]] = {}
        slot_bytes: list[int] = []
        active: list[tuple[int, int]] = []  # (last use, slot)
        program.memory_slots = {}
        program.memory_deps = {}
        program.memory_zero = set()
        viewed = {n.buffer_of for n in program.order if n.buffer_of is not None}
        for i, node in enumerate(program.order):
            still = []
            for lu, slot in active:
                (free.append(slot) if lu < i else still.append((lu, slot)))
            active = still
            if not _poolable(node, viewed):
                continue
            need = node.layout().bytes
            key = _strict_key(node)
            own_inputs = {program.memory_slots.get(d.id) for d in node.dependencies}
            cands = [s for s in free if s not in own_inputs]
            fits = [s for s in cands if slot_bytes[s] >= need]
            if fits:
                slot = min(fits, key=lambda s: slot_bytes[s])
            elif cands:
                slot = max(cands, key=lambda s: slot_bytes[s])
                slot_bytes[slot] = need
            else:
                slot = len(slot_bytes)
                slot_bytes.append(need)
            if slot in free:
                free.remove(slot)
            prev = owner_history.get(slot, [])
            if prev:
                last = prev[-1]
                program.memory_deps[node.id] = [last.id] + [u.id for u in last.users]
                if key is not None and last.layout() != key:
                    program.memory_zero.add(node.id)
            owner_history.setdefault(slot, []).append(node)
            program.memory_slots[node.id] = slot
            active.append((last_use[node.id], slot))
        for owners in owner_history.values():  # the next execution's first owner follows this one's last
            first, last = owners[0], owners[-1]
            if first is not last and _strict_key(first) is not None and last.layout() != first.layout():
                program.memory_zero.add(first.id)
        program.slot_bytes = slot_bytes
