"""prepare_padding: producers of a convolution's input write into a padded buffer, so the convolution reads its
halo (the zero border its taps reach) without bounds checks.

Why: bounds checks in the inner loop of a direct convolution cost more than the extra memory. The halo a
convolution needs follows from its parameters alone: ``pad`` rows/columns before, and after whatever the last
window reaches past the input: max(0, (O-1)·stride - pad + (K-1)·dilation - (I-1)). The producer's output layout
gets at least that much y/x padding (the largest over its convolution users); buffers are allocated zero-filled
and producers write only the interior, so the halo reads zeros. Done for convolutions on the blocked format, output
or input (the fast kernels read without checks when the padding covers the halo); network inputs, constants, views
and in-place buffers are left alone, and padded buffers are kept out of the memory pool.

On the CPU engine the same for plain (bfyx) k×k convolutions that ``convolution_cpu_packed`` runs on channel-vector
row tiles: with the halo in its input it reads the input in place instead of copying it into zero-bordered planes
each run (``convolution_kernel_cpu_packed.halo_read_in_place``). Only where the producer is itself such a
convolution that stores its rows straight into a padded output (``writes_padded_rows``: row tiles, a 1×1 stride-1
layer included) and every user of the producer reads it that way; a change that would move either node to another
kernel is undone.
"""

from __future__ import annotations

from ..kernel_params import best_kernel, node_params
from ..layout import Format, Padding
from ..ops import ConvolutionAttrs, conv_halo
from ..pass_manager import BasePass
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode


def halo(conv: ProgramNode) -> tuple[tuple[int, int], tuple[int, int]]:
    """((before y, after y), (before x, after x)): rows/columns outside the input that ``conv``'s windows reach
    (:func:`cldnn_py.ops.conv_halo`)."""
    a = conv.primitive.attrs()
    assert isinstance(a, ConvolutionAttrs)
    _, _, h, w = conv.dependencies[0].layout().dims4
    _, _, kh, kw = conv.dependencies[1].layout().shape
    # the convolution's own output: with a fused pooling (passes/fuse_pool_into_conv.py) its layout is the pooled one
    _, _, oh, ow = conv.primitive.calc_output_layout([d.layout() for d in conv.dependencies]).dims4
    return conv_halo((h, w), (kh, kw), (oh, ow), a.stride, a.dilation, a.pad)


class PreparePadding(BasePass):
    """Pads the outputs of blocked convolutions' producers by the halo the convolutions need."""

    name = "prepare_padding"

    def run(self, program: ProgramGraph) -> None:
        """Collect the largest halo per producer, then set its output padding."""
        need: dict[str, list[int]] = {}
        for conv in program.order:
            if conv.kind != "convolution" or conv.constant or Format.b_fs_yx_fsv16 not in (
                    conv.layout().format, conv.dependencies[0].layout().format):
                continue
            src = conv.dependencies[0]
            if (src.optimized_out or src.constant or src.kind in ("data", "input_layout") or src.buffer_of
                    or src.in_place or any(u.buffer_of == src.id for u in src.users)):
                continue
            (by, ay), (bx, ax) = halo(conv)
            if not any((by, ay, bx, ax)):
                continue
            cur = need.setdefault(src.id, [0, 0, 0, 0])
            need[src.id] = [max(a, b) for a, b in zip(cur, (by, ay, bx, ax))]
        for pid, (by, ay, bx, ax) in need.items():
            _pad(program.nodes[pid], (by, ay, bx, ax))
        if program.engine.kind == "cpu":
            _pad_cpu_grids(program)


def _pad(node: ProgramNode, halo: tuple[int, int, int, int]) -> None:
    """At least ``halo`` (before y, after y, before x, after x) of y/x padding on ``node``'s output layout."""
    by, ay, bx, ax = halo
    lay = node.layout()
    lo, hi = list(lay.padding.lower), list(lay.padding.upper)
    lo[2], hi[2], lo[3], hi[3] = max(lo[2], by), max(hi[2], ay), max(lo[3], bx), max(hi[3], ax)
    node.output_layout = lay.with_(padding=Padding(tuple(lo), tuple(hi)))  # type: ignore[arg-type]


PACKED = "convolution_cpu_packed"


def _pad_cpu_grids(program: ProgramGraph) -> None:
    """The CPU engine's part (module docstring): pad the output of a producer convolution by the largest halo its
    users read in place, when all of them do and the producer then still stores its rows directly."""
    # lazy: the CPU kernels import numba, which an OpenCL build never loads
    from kernel_selector.kernels.convolution.convolution_kernel_cpu_packed import halo_read_in_place, writes_padded_rows

    reads: dict[str, tuple[int, int, int, int]] = {}  # consumer id -> the halo it would read in place
    for conv in program.order:
        if (conv.kind != "convolution" or conv.constant or conv.layout().format != Format.bfyx
                or conv.dependencies[0].layout().format != Format.bfyx or best_kernel(program, conv) != PACKED):
            continue
        h = halo_read_in_place(node_params(program, conv))
        if h is not None:
            reads[conv.id] = h
    producers = {program.nodes[c].dependencies[0].id for c in reads}
    for pid in sorted(producers):
        src = program.nodes[pid]
        users = src.users
        if (src.kind != "convolution" or src.constant or src.optimized_out or src.is_output or src.buffer_of
                or src.in_place or not src.layout().padding.is_zero or best_kernel(program, src) != PACKED
                or any(u.id not in reads or u.dependencies[0] is not src or
                       any(d is src for d in u.dependencies[1:]) for u in users)):
            continue
        halo = tuple(max(reads[u.id][i] for u in users) for i in range(4))
        if not any(halo):  # 1x1 users only: nothing to pad for
            continue
        old = src.output_layout
        _pad(src, halo)  # type: ignore[arg-type]
        ok = best_kernel(program, src) == PACKED and writes_padded_rows(node_params(program, src)) and all(
            best_kernel(program, u) == PACKED and halo_read_in_place(node_params(program, u)) is not None
            for u in users)
        if not ok:
            src.output_layout = old
