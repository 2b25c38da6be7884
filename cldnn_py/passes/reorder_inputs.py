"""reorder_inputs: the layout optimizer. Decides, for the whole network, which convolutions run in the blocked
``b_fs_yx_fsv16`` format, and inserts the reorders that gets data and weights there; a fully connected layer fed
blocked data gets a reorder back to bfyx when that lets a fast kernel run it, and its weights are packed to
``os_iyx_osv16`` when a fast kernel takes them packed (``fully_connected_gemm`` at batch > 8; at batch 1-8
``fully_connected_gemv`` reads them plain).

Why: the fast convolution kernels want activations with 16 features innermost and weights packed per 16 output
channels (``os_iyx_osv16``); if every convolution converted its input back and forth, the reorders would cost more
than the kernels save. So the choice is made per node from what the kernel_selector offers for this device (a
convolution goes blocked only if a non-reference kernel validates for the blocked layouts), and every other
primitive keeps the format of its input, so blocked data flows from layer to layer with no reorder in between
(clDNN ``reorder_inputs.cpp`` with ``layout_optimizer``). The same rule serves both engines: a convolution goes
blocked only when the best kernel for blocked layouts beats (lower priority) the best one for its plain layouts.
Weight reorders are constant and are folded into packed Data by propagate_constants. A first layer of a few
channels whose input is plain bfyx gets no reorder when a fast kernel reads bfyx there (``_reads_plain``), and a
narrow head (a convolution or deconvolution of at most 8 output channels followed only by activations) writes bfyx
(``_narrow_heads_plain``).
"""

from __future__ import annotations

from kernel_selector import DONT_USE_IF_HAVE_SOMETHING_ELSE, selector

from ..kernel_params import (
    BLOCKED,
    PACKED_WEIGHTS,
    best_fast_kernel,
    best_plain_kernel,
    fast_blocked_kernel,
    node_params,
)
from ..layout import Format, Padding
from ..pass_manager import BasePass
from ..primitives import Reorder
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode, insert_between, recompute_layouts, topological_order
from .blocked_regions import region_of, whole_regions


def fast_plain_kernel(program: ProgramGraph, node: ProgramNode, packed_weights: bool = False) -> str | None:
    """Name of a non-reference kernel that runs ``node`` if its data input were plain unpadded bfyx (and, with
    ``packed_weights``, its weights in os_iyx_osv16), or None."""
    p = node_params(program, node)
    p.inputs = [p.inputs[0].with_(format=Format.bfyx, padding=Padding())] + p.inputs[1:]
    if packed_weights:
        p.inputs[1] = p.inputs[1].with_(format=PACKED_WEIGHTS, padding=Padding())
    for v in selector.explain(p):
        if v.reason is None and v.priority is not None and v.priority < DONT_USE_IF_HAVE_SOMETHING_ELSE:
            return v.kernel
    return None


def reads_blocked(program: ProgramGraph, conv: ProgramNode) -> bool:
    """True when a fast kernel of a WHOLE_REGION_KERNELS kind runs ``conv`` from a blocked input into its own
    (plain) output (passes/blocked_regions.py: such a layer may read a blocked region)."""
    p = node_params(program, conv)
    p.inputs = [p.inputs[0].with_(format=BLOCKED, padding=Padding()),
                p.inputs[1].with_(format=PACKED_WEIGHTS, padding=Padding())] + p.inputs[2:]
    best = best_fast_kernel(p)
    return best is not None and best[1] in WHOLE_REGION_KERNELS


def pool_reads_blocked(program: ProgramGraph, node: ProgramNode) -> bool:
    """True when ``node`` is a pooling that a fast kernel runs from a blocked input into an unpadded bfyx output
    (``pooling_cpu_fsv16``'s one pixel per plane: a global pooling after a network's last convolution), so it may
    read a blocked region (passes/blocked_regions.py) and write plain data for the layers after it."""
    if node.kind != "pooling" or node.dependencies[0].layout().rank != 4:
        return False
    p = node_params(program, node)
    p.inputs = [p.inputs[0].with_(format=BLOCKED, padding=Padding())] + p.inputs[1:]
    p.output = p.output.with_(format=Format.bfyx, padding=Padding())
    return best_fast_kernel(p) is not None


RECURRENT_R = {"lstm_sequence": 3, "gru_sequence": 2}  # the recurrence weights' dependency index
WHOLE_REGION_KERNELS = frozenset({"convolution_cpu_oc_blocked"})
"""CPU kernels whose layers go blocked only with their whole region (passes/blocked_regions.py)."""
NARROW_CHANNELS = 8  # at most this many output channels: a head writes bfyx (_narrow_heads_plain)


def _activation_tail(node: ProgramNode) -> bool:
    """True when everything after ``node`` is a chain (or tree) of activations ending at network outputs, so a
    plain output there needs no reorder back to the blocked format."""
    return all(u.kind == "activation" and _activation_tail(u) for u in node.users)


class ReorderInputs(BasePass):
    """Marks convolutions blocked where a fast kernel exists and reorders their inputs and weights."""

    name = "reorder_inputs"

    def run(self, program: ProgramGraph) -> None:
        """Choose formats, insert reorders, recompute layouts."""
        kernels = {n.id: fast_blocked_kernel(program, n) for n in program.order if n.kind == "convolution"
                   and n.dependencies[0].layout().rank == 4 and n.id not in program.forced_impls}
        chosen = [n for n in program.order if kernels.get(n.id) is not None]
        if program.engine.kind == "cpu":  # the channel-vector blocked layers only in whole blocked regions
            ruled = {i for i, k in kernels.items() if k in WHOLE_REGION_KERNELS}
            pools = {n.id for n in program.order if pool_reads_blocked(program, n)}
            chosen = whole_regions(chosen, ruled,
                                   {i for i in kernels if reads_blocked(program, program.nodes[i])} | pools)
            # a convolution (or pooling) that reads a blocked region and stays plain writes bfyx (it would inherit
            # the format)
            kept = {c.id for c in chosen}
            for conv in chosen:
                if conv.id in ruled:
                    for r in region_of(conv)[1]:
                        if (r.kind == "convolution" and r.id not in kept) or r.id in pools:
                            r.forced_format = Format.bfyx
        for conv in chosen:
            conv.forced_format = BLOCKED
        recompute_layouts(program.order)
        self._narrow_heads_plain(program)
        for conv in chosen:
            data = conv.dependencies[0]
            if data.layout().format != BLOCKED and not self._reads_plain(program, conv):
                self._reorder(program, data, conv, f"{conv.id}__input_{BLOCKED.value}", BLOCKED)
            self._pack_weights(program, conv)
        # a convolution that stays plain gets packed weights when its best kernel takes them (the CPU engine's
        # packed-panel GEMM: the weights are its A operand in 16-row panels)
        for conv in program.order:
            if conv.kind != "convolution" or conv in chosen or conv.id in program.forced_impls or \
                    conv.dependencies[0].layout().rank != 4:
                continue
            best = best_plain_kernel(node_params(program, conv))
            if best is not None and best[2]:
                self._pack_weights(program, conv)
        # a fully connected layer: packed weights when a fast kernel takes them (GEMM, batch > 8), and a cheap
        # reorder of blocked data to bfyx when that lets a fast (GEMV or GEMM) kernel run it
        for fc in [n for n in program.order if n.kind == "fully_connected" and n.id not in program.forced_impls]:
            src = fc.dependencies[0]
            packed = fc.dependencies[1].layout().rank == 2 and fast_plain_kernel(program, fc, True) is not None
            if packed:
                self._pack_weights(program, fc)
            if src.layout().format != Format.bfyx and src.layout().rank <= 4 and \
                    (packed or fast_plain_kernel(program, fc) is not None):
                self._reorder(program, src, fc, f"{fc.id}__input_bfyx", Format.bfyx)
        # an LSTM / GRU sequence: R packed when a fast kernel takes it so (lstm_sequence_packed, gru_sequence_packed)
        for node in [n for n in program.order if n.kind in RECURRENT_R and n.id not in program.forced_impls]:
            i = RECURRENT_R[node.kind]
            p = node_params(program, node)
            p.inputs[i] = p.inputs[i].with_(format=PACKED_WEIGHTS, padding=Padding())
            if best_fast_kernel(p) is not None:
                self._pack_weights(program, node, i)
        program.order = topological_order(program.nodes)
        recompute_layouts(program.order)

    @staticmethod
    def _narrow_heads_plain(program: ProgramGraph) -> None:
        """A convolution or deconvolution with at most NARROW_CHANNELS output channels in the blocked format, followed
        only by activations up to the network outputs (:func:`_activation_tail`), writes bfyx when a fast kernel can:
        b_fs_yx_fsv16 would store 16 lanes per pixel for 1-8 real ones, the activations would run over all of them
        and the host would read them back (the DBNet-style head at batch 8: a 1-channel 320x320 map, 52 MB instead of
        3.3 MB). Layout by cost for the one case where the blocked layout's waste is largest."""
        changed = False
        for node in program.order:
            if node.kind not in ("convolution", "deconvolution") or node.id in program.forced_impls:
                continue
            lay = node.layout()
            if lay.format != BLOCKED or lay.rank != 4 or lay.shape[1] > NARROW_CHANNELS:
                continue
            if not _activation_tail(node):
                continue
            p = node_params(program, node)
            p.output = p.output.with_(format=Format.bfyx, padding=Padding())
            if node.kind == "convolution":
                p.inputs = [p.inputs[0].with_(format=BLOCKED, padding=Padding()),
                            p.inputs[1].with_(format=PACKED_WEIGHTS)] + p.inputs[2:]
            if best_fast_kernel(p) is not None:
                node.forced_format = Format.bfyx
                changed = True
        if changed:
            recompute_layouts(program.order)

    @staticmethod
    def _reads_plain(program: ProgramGraph, conv: ProgramNode) -> bool:
        """True when a fast kernel runs ``conv`` (output blocked) straight from its plain bfyx input: a first layer
        of a few channels, where a reorder would write 16 lanes per pixel for 1-4 real ones (3x224x224: 0.6 MB in,
        3.2 MB out, 0.14 ms on 2 cores) and the convolution would then read them all."""
        if conv.dependencies[0].layout().format != Format.bfyx:
            return False
        p = node_params(program, conv)
        p.inputs = [p.inputs[0]] + [p.inputs[1].with_(format=PACKED_WEIGHTS)] + p.inputs[2:]
        return best_fast_kernel(p) is not None

    def _pack_weights(self, program: ProgramGraph, node: ProgramNode, index: int = 1) -> None:
        """Reorder ``node``'s weights (dependency ``index``: 1, or a recurrent sequence's R) to os_iyx_osv16;
        weights shared by several nodes get one packed copy."""
        weights = node.dependencies[index]
        if weights.layout().format == PACKED_WEIGHTS:
            return
        existing = program.nodes.get(f"{weights.id}__{PACKED_WEIGHTS.value}")
        if existing is not None:
            weights.users = [u for u in weights.users if u is not node]
            existing.users.append(node)
            node.dependencies[index] = existing
        else:
            self._reorder(program, weights, node, f"{weights.id}__{PACKED_WEIGHTS.value}", PACKED_WEIGHTS)

    @staticmethod
    def _reorder(program: ProgramGraph, dep: ProgramNode, user: ProgramNode, rid: str, fmt: Format) -> None:
        while rid in program.nodes:
            rid += "_"
        insert_between(program.nodes, dep, user, Reorder(rid, dep.id, format=fmt))
