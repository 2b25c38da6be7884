"""prepare_buffer_fusing: concatenation in place, and reshape as a view, so neither runs a kernel.

Concatenation: each input writes straight into its slice of the concat output. The trick is clDNN's: the input's
output layout becomes the concat's layout with padding along the concat axis (lower = its offset, upper = what
follows), so the producer's kernel, which writes through OUTPUT_GET_INDEX, lands in the shared buffer. Conditions:
every input a kernel-running node with the concat as its only user, same format and data type, no padding already.
Two widenings (twenty-eighth session), for the C2f blocks of YOLO necks (Conv → Split in halves → bottlenecks →
Concat of the halves and every bottleneck's output: thirteen concatenations, 1.7 ms of the YOLO-style neck's 21 ms
on the CPU engine, copying data the cores had just written): a run of consecutive inputs that are crop views tiling
one producer in order (the Split's outputs) is one segment, the producer writing the run's slice and the crops
re-viewed there (the producer's best kernel must stay the same with the padded output); and on the CPU engine an
input with other users (a bottleneck's output, also the next bottleneck's input) writes its slice too when each of
those users keeps its best kernel reading it there (the OpenCL engine's fast kernels often refuse padded inputs).
Along a blocked dimension (the features of ``b_fs_yx_fsv16``; on the CPU engine since the thirty-sixth session, where
``convolution_cpu_oc_blocked`` writes such slices) every slice must start on a
block (16 channels) and each producer's best kernel must stay the same with the padded output (kernels say they
write such slices with ``writes_padded_blocks``; a producer with a forced kernel keeps its own buffer): otherwise the
concatenation runs its copy kernel.

Reshape: in a plain unpadded row-major format (bfyx), a reshape is the same bytes under another shape, so its
output is a view of its input's buffer. Crop: the box is the input's buffer seen with more padding (lower = the
offsets), so it is a view too, unless it would pad a blocked dimension.
"""

from __future__ import annotations

from ..kernel_params import best_kernel
from ..layout import DIMS, Format, Layout, Padding
from ..pass_manager import BasePass
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode


def _keeps_kernel(program: ProgramGraph, node: ProgramNode, padded: Layout) -> bool:
    """True when ``node``'s best kernel is the same for its output ``padded`` along the blocked dimension as without:
    a producer whose fast kernel cannot write such slices would fall to a slower one, which costs more than the
    concatenation's copy saves."""
    if node.id in program.forced_impls:
        return False
    before = best_kernel(program, node)
    saved = node.output_layout
    node.output_layout = padded
    try:
        return before is not None and best_kernel(program, node) == before
    finally:
        node.output_layout = saved


def _eligible(x: ProgramNode, out: Layout) -> bool:
    """A kernel-running node with an unpadded buffer of its own, of the concat's format and type, not an output."""
    lay = x.layout()
    return not (x.optimized_out or x.constant or x.kind in ("data", "input_layout") or x.is_output or x.buffer_of
                or x.in_place or lay.dtype != out.dtype or lay.format != out.format or not lay.padding.is_zero)


def _crop_run(deps: list[ProgramNode], i: int, d: str) -> tuple[ProgramNode, list[ProgramNode]] | None:
    """(P, its crops) when deps[i:] starts with crop views that tile P along ``d`` in order and are all of P's users
    (YOLO's C2f: Split → the halves → Concat with the bottlenecks' outputs), else None."""
    x = deps[i]
    if x.kind != "crop" or not x.optimized_out or x.is_output:
        return None
    src = x.dependencies[0]
    crops = list(src.users)
    if any(c.kind != "crop" for c in crops) or deps[i:i + len(crops)] != sorted(crops,
                                                                             key=lambda c: _crop_offset(c, d)):
        return None
    k = DIMS.index(d)
    at = 0
    for c in deps[i:i + len(crops)]:
        offs = tuple(c.primitive.offsets) + (0,) * (4 - c.layout().rank)  # type: ignore[attr-defined]
        if not c.optimized_out or c.buffer_of != src.id or c.is_output or offs[k] != at \
                or any(offs[j] or c.layout().dims4[j] != src.layout().dims4[j] for j in range(4) if j != k):
            return None
        at += c.layout().dims4[k]
    return (src, deps[i:i + len(crops)]) if at == src.layout().dims4[k] else None


def _crop_offset(c: ProgramNode, d: str) -> int:
    """A crop's offset along ``d``."""
    offs = tuple(c.primitive.offsets) + (0,) * 4  # type: ignore[attr-defined]
    return int(offs[DIMS.index(d)])


def _users_keep_kernels(program: ProgramGraph, x: ProgramNode, padded: Layout, skip: ProgramNode) -> bool:
    """CPU engine: ``x``'s users other than ``skip`` keep their best kernels when ``x``'s output is ``padded`` (then
    they read its slice of the concat's buffer). On OpenCL a producer with other users keeps its buffer."""
    others = [u for u in x.users if u is not skip]
    if not others:
        return True
    if program.engine.kind != "cpu" or any(u.kind == "concatenation" for u in others):
        return False
    before = [best_kernel(program, u) for u in others]
    saved = x.output_layout
    x.output_layout = padded
    try:
        return all(b is not None and best_kernel(program, u) == b for u, b in zip(others, before))
    finally:
        x.output_layout = saved


def _concat_in_place(program: ProgramGraph, node: ProgramNode) -> bool:
    """Each input a segment of the concat's buffer: a producer writing its slice (its other users, CPU engine only,
    reading it there), or a run of crop views that tile one producer, which then writes the whole run's slice."""
    out = node.layout()
    axis = node.primitive.axis % out.rank  # type: ignore[attr-defined]
    d = DIMS[axis]
    blk = out.format.block
    blocked = blk is not None and blk[0] == d
    if out.rank > 4 or not out.padding.is_zero:
        return False
    deps = node.dependencies
    if len({id(x) for x in deps}) != len(deps):
        return False
    i = DIMS.index(d)
    segments: list[tuple[ProgramNode, list[ProgramNode]]] = []  # (producer, its crops in the concat)
    j = 0
    while j < len(deps):
        run = _crop_run(deps, j, d)
        if run is not None:
            segments.append(run)
            j += len(run[1])
        else:
            segments.append((deps[j], []))
            j += 1
    offset = 0
    plan = []
    for x, crops in segments:
        if not _eligible(x, out):
            return False
        size = x.layout().dims4[i]
        lower, upper = [0, 0, 0, 0], [0, 0, 0, 0]
        lower[i], upper[i] = offset, out.dims4[i] - offset - size
        offset += size
        if blocked and lower[i] % blk[1]:  # type: ignore[index]
            return False  # a slice starting inside a block
        lay = x.layout().with_(padding=Padding(tuple(lower), tuple(upper)))  # type: ignore[arg-type]
        if (blocked or crops) and not _keeps_kernel(program, x, lay):
            return False  # a producer whose fast kernel cannot write slices
        if not crops and not _users_keep_kernels(program, x, lay, node):
            return False
        plan.append((x, crops, lay))
    for x, crops, lay in plan:
        x.output_layout = lay
        x.buffer_of = node.id
        for c in crops:  # the crop views now see the producer's slice of the concat's buffer
            c.output_layout = c.layout().with_(padding=Padding())
            _crop_view(c)
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
