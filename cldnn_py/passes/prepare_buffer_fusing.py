"""prepare_buffer_fusing: concatenation in place, and reshape as a view, so neither runs a kernel.

Concatenation: each input writes straight into its slice of the concat output. The trick is clDNN's: the input's
output layout becomes the concat's layout with padding along the concat axis (lower = its offset, upper = what
follows), so the producer's kernel, which writes through OUTPUT_GET_INDEX, lands in the shared buffer. Conditions:
every input a kernel-running node with the concat as its only user, same format and data type, no padding already.
Along a blocked dimension (the features of ``b_fs_yx_fsv16``, OpenCL engine only) every slice must start on a
block (16 channels) and each producer's best kernel must stay the same with the padded output (kernels say they
write such slices with ``writes_padded_blocks``; a producer with a forced kernel keeps its own buffer): otherwise the
concatenation runs its copy kernel.

Reshape: in a plain unpadded row-major format (bfyx), a reshape is the same bytes under another shape, so its
output is a view of its input's buffer. Crop: the box is the input's buffer seen with more padding (lower = the
offsets), so it is a view too, unless it would pad a blocked dimension.
"""

from __future__ import annotations

from kernel_selector import selector

from ..kernel_params import node_params
from ..layout import DIMS, Format, Layout, Padding
from ..pass_manager import BasePass
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode


def _best_kernel(program: ProgramGraph, node: ProgramNode) -> str | None:
    """The kernel the selector's priority rules give ``node`` with its current output layout (no tuning cache)."""
    ok = [v for v in selector.explain(node_params(program, node)) if v.reason is None]
    return ok[0].kernel if ok else None


def _keeps_kernel(program: ProgramGraph, node: ProgramNode, padded: Layout) -> bool:
    """True when ``node``'s best kernel is the same for its output ``padded`` along the blocked dimension as without:
    a producer whose fast kernel cannot write such slices would fall to a slower one, which costs more than the
    concatenation's copy saves."""
    if node.id in program.forced_impls:
        return False
    before = _best_kernel(program, node)
    saved = node.output_layout
    node.output_layout = padded
    try:
        return before is not None and _best_kernel(program, node) == before
    finally:
        node.output_layout = saved


def _concat_in_place(program: ProgramGraph, node: ProgramNode) -> bool:
    out = node.layout()
    axis = node.primitive.axis % out.rank  # type: ignore[attr-defined]
    d = DIMS[axis]
    blk = out.format.block
    blocked = blk is not None and blk[0] == d
    if out.rank > 4 or not out.padding.is_zero or (blocked and program.engine.kind == "cpu"):
        return False
    deps = node.dependencies
    if len({id(x) for x in deps}) != len(deps):
        return False
    offset = 0
    pads = []
    for x in deps:
        lay = x.layout()
        users = {id(u) for u in x.users}
        if (x.optimized_out or x.constant or x.kind in ("data", "input_layout") or x.is_output or len(users) != 1
                or x.buffer_of or x.in_place or lay.dtype != out.dtype
                or lay.format != out.format or not lay.padding.is_zero):
            return False
        size = lay.dims4[DIMS.index(d)]
        pads.append((offset, out.dims4[DIMS.index(d)] - offset - size))
        offset += size
    i = DIMS.index(d)
    layouts = []
    for x, (lo, hi) in zip(deps, pads):
        lower = [0, 0, 0, 0]
        upper = [0, 0, 0, 0]
        lower[i], upper[i] = lo, hi
        if blocked and lo % blk[1]:  # type: ignore[index]
            return False  # a slice starting inside a block
        lay = x.layout().with_(padding=Padding(tuple(lower), tuple(upper)))  # type: ignore[arg-type]
        if blocked and not _keeps_kernel(program, x, lay):
            return False  # a producer whose fast kernel cannot write slices
        layouts.append(lay)
    for x, lay in zip(deps, layouts):
        x.output_layout = lay
        x.buffer_of = node.id
    node.in_place = True
    node.optimized_out = True
    return True


def _crop_view(node: ProgramNode) -> bool:
    """A crop reads a box of its input: describe the box as the input's buffer with more padding."""
    src = node.dependencies[0]
    a, b = src.layout(), node.layout()
    if src.kind == "data" or src.in_place or a.rank > 4 or a.format != b.format or a.dtype != b.dtype:
        return False
    offs = tuple(node.primitive.offsets) + (0,) * (4 - a.rank)  # type: ignore[attr-defined]
    blk = a.format.block
    if blk is not None:
        i = DIMS.index(blk[0])
        if offs[i] or a.dims4[i] != b.dims4[i]:
            return False  # a blocked dimension cannot be padded
    lower = tuple(p + o for p, o in zip(a.padding.lower, offs))
    upper = tuple(p + n - o - m for p, n, o, m in zip(a.padding.upper, a.dims4, offs, b.dims4))
    node.output_layout = b.with_(padding=Padding(lower, upper))
    node.buffer_of = src.buffer_of or src.id
    node.optimized_out = True
    return True


def _reshape_view(node: ProgramNode) -> bool:
    src = node.dependencies[0]
    a, b = src.layout(), node.layout()
    if a.format != Format.bfyx or b.format != Format.bfyx or not a.padding.is_zero or not b.padding.is_zero:
        return False
    if src.kind == "data" or src.in_place:
        return False
    node.buffer_of = src.buffer_of or src.id
    node.optimized_out = True
    return True


class PrepareBufferFusing(BasePass):
    """Marks in-place concatenations and reshape views (before kernels are selected)."""

    name = "prepare_buffer_fusing"

    def run(self, program: ProgramGraph) -> None:
        """One walk in execution order."""
        for node in program.order:
            if node.kind == "concatenation" and not node.constant:
                _concat_in_place(program, node)
            elif node.kind == "reshape" and not node.constant:
                _reshape_view(node)
            elif node.kind == "crop" and not node.constant and not node.is_output:
                _crop_view(node)
