"""prepare_memory_dependencies: the memory pool plan. Activations whose lifetimes do not overlap share a buffer.

Why: a deep network holds only a few tensors alive at a time; giving each its own buffer wastes memory and cache.
Lifetime of a node's output: from its position in execution order to the last position of a user (outputs live
to the end). Greedy best fit in execution order (as clDNN's memory_pool reuses by size): a buffer is free again
after the last reader of its tensor; a node never reuses a buffer one of its own inputs is in. Padded and
partially-filled blocked tensors (whose halo or zero tail kernels rely on) get buffers of their own.

On an out-of-order queue, reuse is a write-after-read hazard: ``program.memory_deps[id]`` lists the nodes (the
previous owner of the buffer and its readers) whose kernels must finish before this node writes; the Network adds
their events to the wait list.
"""

from __future__ import annotations

from ..pass_manager import BasePass
from ..program import ProgramBuilder
from ..program_node import ProgramNode


def _poolable(node: ProgramNode) -> bool:
    lay = node.layout()
    if node.optimized_out or node.kind in ("data", "input_layout") or node.is_output or node.constant:
        return False
    if not lay.padding.is_zero:
        return False
    blk = lay.format.block
    if blk is not None and lay.dims4["bfyx".index(blk[0])] % blk[1]:
        return False
    # in-place concat buffers, views and the tensors they view live by other rules
    return node.buffer_of is None and not node.in_place and not any(u.buffer_of == node.id for u in node.users)


class PrepareMemoryDependencies(BasePass):
    """Fills ``program.memory_slots`` {id: slot}, ``program.slot_bytes`` and ``program.memory_deps``."""

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
        for i, node in enumerate(program.order):
            still = []
            for lu, slot in active:
                (free.append(slot) if lu < i else still.append((lu, slot)))
            active = still
            if not _poolable(node):
                continue
            need = node.layout().bytes
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
            owner_history.setdefault(slot, []).append(node)
            program.memory_slots[node.id] = slot
            active.append((last_use[node.id], slot))
        program.slot_bytes = slot_bytes
