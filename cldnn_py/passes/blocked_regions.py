"""Whole regions of blocked data on the CPU engine: the part of the layout optimizer (passes/reorder_inputs.py) that
keeps the CPU engine from making a convolution blocked when its neighbours stay plain.

Why: on OpenCL every dense convolution has a blocked kernel, so blocked data flows from layer to layer. On the CPU
engine only some shapes have one (``convolution_cpu_oc_blocked``: the layers that run channel-vector tiles); the
others (``convolution_cpu_packed``'s pixel-vector GEMM: ResNet-50's 56×56 1×1 layers) want bfyx. A blocked layer
whose output a plain layer reads would cost a reorder of that tensor each way (more than the blocked stores save).
So the data a convolution writes is blocked only where its whole *region* agrees: the region is the set of nodes
reached from the convolution's output through format-following nodes (:data:`FOLLOWERS`: they keep their input's
format), both downstream and, through their other inputs, upstream. The region goes blocked when every convolution
that writes into it is a candidate and every convolution that reads it is one too (a candidate reads either
format: a bfyx input in place, or blocked). Any other reader (a pooling, an LRN, a softmax) keeps the region plain:
their CPU kernels are fastest on bfyx, some have none for the blocked format. The rule runs to a fixed point: a
candidate dropped from one region becomes a plain reader of the region it reads, and a candidate that takes a
member of a plain region as a fused residual (:func:`reads_as_operand`) is dropped too.
"""

from __future__ import annotations

from ..program_node import ProgramNode

FOLLOWERS = frozenset({"concatenation", "activation", "eltwise"})
"""Node kinds whose output keeps the format of their input and whose CPU kernels run on b_fs_yx_fsv16 as fast as on
bfyx (a concatenation in place), and a strided local pooling (:func:`follows`). Any other reader (a stride-1 or
global pooling, an LRN, a softmax, ...) keeps its region plain."""


def follows(node: ProgramNode) -> bool:
    """True when ``node`` keeps its input's region (:data:`FOLLOWERS`, or a pooling of a local window with a stride
    above 1: SqueezeNet's, between its fire modules). A stride-1 "same" pooling (the inception modules' branch) runs
    the IR kernel of ``pooling_cpu_same`` on bfyx: pooling_cpu_fsv16 ran GoogLeNet b8's poolings in 13.3 ms against
    1.0 that way; a global one reads a whole plane per channel, a layout-neutral reduction at a network's end."""
    if node.kind in FOLLOWERS:
        return True
    if node.kind != "pooling":
        return False
    a = node.primitive.attrs()
    return not a.global_pooling and max(a.stride) > 1  # type: ignore[attr-defined]


def region_of(conv: ProgramNode) -> tuple[list[ProgramNode], list[ProgramNode], bool]:
    """(writers, readers, output) of the region ``conv``'s output belongs to: :func:`region_members` without the
    members."""
    writers, readers, output, _ = region_members(conv)
    return writers, readers, output


def region_members(conv: ProgramNode) -> tuple[list[ProgramNode], list[ProgramNode], bool, set[str]]:
    """(writers, readers, output) of the region ``conv``'s output belongs to (module docstring): writers are the
    nodes that are not format-following and whose output enters the region (convolutions and anything else), readers
    the nodes that are not format-following and read it (convolutions, as their data input or a fused operand, and
    anything else); ``output``: a node of the region (a writer or a format-following node) is a network output,
    which the user reads in bfyx; the ids of its members (the writers and the format-following nodes)."""
    writers: dict[str, ProgramNode] = {conv.id: conv}
    readers: dict[str, ProgramNode] = {}
    seen = {conv.id}
    todo = [conv]
    output = False
    while todo:
        node = todo.pop()
        output = output or node.is_output
        for user in node.users:
            if not follows(user):
                readers[user.id] = user
            elif user.id not in seen:
                seen.add(user.id)
                todo.append(user)
        if not follows(node):
            continue
        for dep in node.dependencies:
            if dep.constant or dep.id in seen:
                continue
            seen.add(dep.id)
            if follows(dep):
                todo.append(dep)
            else:
                writers[dep.id] = dep
                todo.append(dep)  # its other users read the region too
    return list(writers.values()), list(readers.values()), output, seen | set(writers)


def reads_as_operand(reader: ProgramNode, members: set[str]) -> bool:
    """True when ``reader`` takes a member of a region as a fused eltwise operand (a residual sum its blocked kernel
    reads only in the blocked format, so it cannot stay blocked when that region goes plain)."""
    return any(reader.dependencies[i].id in members for op in reader.fused_ops if op.kind == "eltwise"
               for i in op.dep_indices)


def whole_regions(chosen: list[ProgramNode], ruled: set[str], plain_readers: set[str]) -> list[ProgramNode]:
    """The convolutions of ``chosen`` (the layout optimizer's blocked candidates) that stay blocked: those not in
    ``ruled`` (ids of the candidates this rule applies to: the ones whose blocked kernel wants whole regions), and
    those in it whose output region is all blocked (module docstring). A convolution in ``plain_readers`` reads a
    blocked region fast while its own output stays plain. Nothing is changed in the graph."""
    keep = {c.id for c in chosen}
    changed = True
    while changed:
        changed = False
        for conv in chosen:
            if conv.id not in keep or conv.id not in ruled:
                continue
            writers, readers, output, members = region_members(conv)
            if not output and all(w.id in keep for w in writers) and all(r.id in keep or r.id in plain_readers
                                                                         for r in readers):
                continue
            for r in readers:  # a blocked residual needs this region blocked
                if r.id in keep and r.id in ruled and reads_as_operand(r, members):
                    keep.discard(r.id)
                    changed = True
            for w in writers:
                if w.id in keep and w.id in ruled:
                    keep.discard(w.id)
                    changed = True
            if conv.id in keep:  # a writer outside the rule (or a plain reader) keeps the region plain
                keep.discard(conv.id)
                changed = True
    return [c for c in chosen if c.id in keep]
