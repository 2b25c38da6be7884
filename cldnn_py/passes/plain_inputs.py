"""plain_inputs: every network input is stored plain (bfyx, unpadded); a reorder on the device gives it the format
and padding its InputLayout declares.

Why: the user hands a logical array in C order. An input stored blocked (``b_fs_yx_fsv16``), padded or in another
order (``byxf``) had to be converted on the host before each copy (``Layout.to_physical``: a zero fill and a
transpose in numpy, 1-3 ms for a batch of 224x224 images on 2 cores), and its buffer could never be the user's own
memory (``Network.set_input_memory``: zero-copy I/O). Stored plain, the input is the user's bytes as they are; the
existing reorder kernel converts on the device, where it runs in parallel with no Python in the loop. The reorder
produces exactly the declared layout, so every other node sees what it saw before; later passes treat it as any
reorder (remove_redundant_reorders shortens a chain when reorder_inputs puts another reorder after it). Runs with
and without ``optimize_data``: it is what makes the input buffer the user's bytes, not an optimization.

With the GPU kernel tier (a GPU, or ``kernel_tier="gpu"``) no reorder goes back: the consumers read the plain
input. The GPU tier's kernels take plain tensors, so a convolution after an input declared ``b_fs_yx_fsv16`` got
the reference kernel there (seen on an H100: ``convolution_ref`` instead of ``convolution_gpu_igemm``); a declared
padding is a halo only the CPU tier's blocked kernels read.
"""

from __future__ import annotations

import dataclasses

from ..layout import Format, Layout
from ..pass_manager import BasePass
from ..primitives import Reorder
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode, topological_order


class PlainInputs(BasePass):
    """Makes each non-plain InputLayout plain bfyx and puts a reorder to the declared layout after it."""

    name = "plain_inputs"

    def run(self, program: ProgramGraph) -> None:
        """Rewrite the input_layout nodes whose declared layout is not plain and that some node reads."""
        changed = False
        eng = program.engine
        gpu_tier = eng.kind == "ocl" and program.options.resolved_tier(eng.info.caps.device_type) == "gpu"
        for node in list(program.order):
            if node.kind != "input_layout" or node.layout().is_plain or not node.users:
                continue
            self.node = node.id
            declared = node.layout()
            plain = Layout(declared.dtype, Format.bfyx, declared.shape)
            node.primitive = dataclasses.replace(node.primitive, layout=plain)  # type: ignore[call-arg]
            node.output_layout = plain
            if gpu_tier:  # the consumers read the plain input (module docstring)
                changed = True
                continue
            rid = f"{node.id}__{declared.format.value}"
            while rid in program.nodes:
                rid += "_"
            users = list({id(u): u for u in node.users}.values())
            reorder = ProgramNode(Reorder(rid, node.id, format=declared.format), dependencies=[node], users=users)
            reorder.output_layout = declared  # the declared padding too (recompute_layouts keeps a non-zero padding)
            for u in users:
                u.dependencies = [reorder if d is node else d for d in u.dependencies]
            node.users = [reorder]
            program.nodes[rid] = reorder
            changed = True
        if changed:
            program.order = topological_order(program.nodes)
