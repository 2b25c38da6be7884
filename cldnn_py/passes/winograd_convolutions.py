"""winograd_convolutions: a 3×3 stride-1 convolution becomes Winograd F(4×4, 3×3): an input transform, one batched
GEMM with the transformed filters, an output transform that carries the bias and the fused ops.

Why: on the CPU OpenCL devices (PoCL) the blocked direct convolution runs ResNet-50's 3×3 layers at 150-165
GFLOP/s; F(4×4, 3×3) (Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks", CVPR 2016) needs 4× fewer
multiply-adds, which ``gemm_tiled`` runs as 36 products M[ξν] = V[ξν] (tiles × C) · U[ξν] (C × OC) at 95-150
GFLOP/s, and the two transforms are memory passes over the tile data (``cldnn_py/ops/winograd.py``). clDNN has
Winograd kernels for the same reason (``convolution_winograd_2x3_s1``, formats ``winograd_2x3_s1_data``); oneDNN
for AVX-512. Here it is a rewrite of the graph into three primitives, so each part gets its own kernel from the
kernel_selector:

    x ─ conv(W, b) [fused ops] ─ users    →    x ─ winograd_input ─ gemm(U) ─ winograd_output(b) [fused ops] ─ users

U = G W Gᵀ is computed at build time (float64, then float32), a constant of 36·C·OC values (4× the filters),
stored transposed as 16-column panels ([36][OC/16][C][16], a constant reorder to b_fs_yx_fsv16 of U's (36, OC, C)
transpose: the GEMM reads B in place, with no private panel copy; 1.3-1.7× the plain-B GEMM on ResNet-50's 56×56,
28×28 and 14×14 products, ``benchmarks/gemm_kernels.py --shapes wino14 wino28 wino56``). The
output node keeps the convolution's id, output format, users and fused ops, so outputs and profiling keep their
names.

When: f32 programs only (half keeps the direct kernels: F(4, 3) amplifies rounding), a convolution with constant
3×3 weights, stride 1, dilation 1, one group, blocked (b_fs_yx_fsv16) input and output whose channel counts are
multiples of 16, at least MIN_TILES 4×4 output tiles over the batch (a 7×7 map has 4 per image: its GEMM would be a
matrix-vector product over 4× the filter bytes, slower than the direct kernel) and MIN_PRODUCTS outputs per product,
no forced implementation, and when the kernel_selector has a
non-reference kernel for each of the three new nodes (the transforms are CPU-tier kernels: GPU devices keep their
convolution kernels). Gains on PoCL (2 Zen 4 cores): docs/performance.md.

On the CPU engine (bfyx input and output, any channel counts): the channel-major form (``ops/winograd.py``), the
36 products one 1×1 convolution with 36 groups whose weights (``winograd_weights_grouped``) get the packing reorder
reorder_inputs gives every convolution (this pass runs after it), so the engine's packed-panel GEMM runs them;
and only where the products outweigh the transforms (:func:`min_macs_per_value_plain`: with AVX-512 the direct
kernel is fast enough that few layers gain; on a full-rate one, only maps of 28×28 and more:
MIN_IMAGE_TILES_FULL_RATE). VGG-19 0.60-0.66×, ResNet-50 0.91-0.97× the direct kernels' time at batch 1
(``benchmarks/winograd_ab.py``).

Fake-quantized (QDQ) layers, whose fused chain rounds the sum to the output's quantization step, are rewritten too
(since 2026-11-26): Winograd's float rounding moves a sum across a half step a little more often than the direct
sum (SqueezeNet QDQ: 99.85% of the logits on the step of onnxruntime's unoptimized run instead of 99.95%, every one
within one step, issue 18's bound; against onnxruntime's own int8 kernels, which differ from its unoptimized run by
more, the agreement does not change), and the int8 ResNet-50 runs 8-10 ms faster (benchmarks/int8.py).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..kernel_params import PACKED_WEIGHTS, best_fast_kernel, node_params
from ..layout import DataType, Format
from ..ops import ConvolutionAttrs
from ..ops.winograd import ALPHA, TILE, tiles, winograd_weights, winograd_weights_grouped
from ..pass_manager import BasePass
from ..primitives import Convolution, Data, Gemm, Reorder, WinogradInput, WinogradOutput
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode, remove_node, topological_order

MIN_TILES = 16
"""Rewrite only when the output has at least this many 4×4 tiles over the batch (14×14 at batch 1)."""

MIN_PRODUCTS = 1024
"""... and when each of the 36 products has at least this many outputs (tiles × OC): DenseNet's 128 → 32 layers at
14×14 (16 × 32) ran at 1.04× the direct kernel's time, its 28×28 ones (49 × 32) at 0.52×."""

MIN_MACS_PER_VALUE_PLAIN = 32
"""On the CPU engine (bfyx, channel-major, the products a grouped 1×1 convolution): at least this many product
multiply-adds per transformed value, C·OC / (C + OC) (the transforms cost per value, the products per C·OC).
Measured against the direct kernel (``convolution_cpu_packed``) in one process, 2-core Zen 4 VM, batch 1:
64 → 64 at 56×56 (32) 0.77-0.93× its time, 96 → 96 at 28×28 (48) 0.93×, 128 → 128 at 28×28 (64) 0.66×,
256 → 256 at 14×14 (128) 0.73×; 32 → 32 at 56×56 (16) 1.42×, and DenseNet-121's six 128 → 32 layers (25.6) made
the network 1.04× slower. Networks: VGG-19 0.60×, ResNet-50 0.93-0.97×, GoogLeNet 0.97×. Those figures were taken
on a host whose numba code uses 8-float vectors (AVX2); with 16 (AVX-512) see MIN_MACS_PER_VALUE_WIDE."""

MIN_MACS_PER_VALUE_WIDE = ((36, 192), (144, 128), (576, 96), (1 << 62, 64))
"""On a CPU-engine host whose numba code uses 16-float vectors (``kernel_selector.common.cpu_microkernel.W``,
AVX-512), the direct kernel's packed GEMM runs 3×3 layers at 165-195 GFLOP/s while the transforms, scalar along
the tile columns, gain nothing from the wider vectors; so the bar is higher, and higher for small maps, where the
36 products are thin. Pairs (tiles over the batch below, least product multiply-adds per transformed value).
Measured per layer (the three Winograd kernels' sum against the direct kernel, same process, interleaved,
2-core Zen 4 VM that shows AVX-512, 2026-12-07, ``python benchmarks/winograd_ab.py --layers``):
16 tiles (14×14): 256 → 256 (128) 1.05-1.19×, 192 → 256 (110) 1.01×, 96-160 → 128-192 (55-87) 1.1-1.6×, but
512 → 512 (256) 0.72-0.76×; 49 tiles (27×27, 28×28): 128 → 128 (64) 1.01-1.08×, 128 → 192 (77) 0.94×, 256 → 512
(171) 0.65×; 196 tiles (56×56): 64 → 64 (32) 1.8×, 64 → 192 (48) 1.1-1.5×, 128 → 256 (85) 0.97×, 256 → 256 (128)
0.80×; 784 tiles (112×112): 64 → 128 (43) 1.19×, 128 → 128 (64) 0.82×; 3136 tiles (224×224): 64 → 64 (32)
1.28×. Networks (wall time, Winograd on vs off before this rule): ResNet-50 1.04-1.10×, Inception-v2 1.06-1.19×,
GoogLeNet 1.11-1.17×, VGG-19 0.80-0.82×."""


MIN_IMAGE_TILES_FULL_RATE = 49
"""On a CPU-engine host with 16-float vectors whose 512-bit FMAs run at full rate
(``kernel_selector.common.cpu_fma_rate.full_rate_512``: Zen 5), also at least this many 4×4 tiles per image (28×28
outputs and larger): there the direct kernel's 14 × 32 and two-row channel-vector tiles run 14×14 and 7×7 layers
at 370-470 GFLOP/s, and the three Winograd kernels cost more. Per layer inside networks, paired (2-core Zen 5 VM,
2026-12-08, the Winograd kernels' sum against the direct convolution, ``MIN_TILES`` switched): ResNet-50 b8's
256 → 256 at 14×14 (128 tiles) 5.4 against 3.65 ms, 512 → 512 at 7×7 (32 tiles) 6.1 against 4.05; VGG-19 b1's
512 → 512 at 14×14 1.05-1.09×; but VGG-19's 56×56 layers 0.66×, 28×28 0.75-0.92×, 112×112 128 → 128 0.89×.
ResNet-50 b8 with no Winograd at all: 0.92× the time."""


def min_macs_per_value_plain(n_tiles: int, lanes: int) -> int:
    """The least C·OC / (C + OC) for which the CPU engine's channel-major Winograd form is used on a layer of
    ``n_tiles`` 4×4 output tiles over the batch, on a host whose numba kernels use ``lanes``-float vectors:
    MIN_MACS_PER_VALUE_PLAIN below 16 lanes, the MIN_MACS_PER_VALUE_WIDE table from 16."""
    if lanes < 16:
        return MIN_MACS_PER_VALUE_PLAIN
    return next(m for limit, m in MIN_MACS_PER_VALUE_WIDE if n_tiles < limit)

U_PANELS = True
"""Blocked programs: U stored transposed as 16-column panels (b_fs_yx_fsv16) for ``gemm_tiled`` to read in place;
False keeps the plain (36, C, OC) form the kernel copies panel by panel (for A/B measurements)."""

BLOCKED = Format.b_fs_yx_fsv16
PLAIN = Format.bfyx


class WinogradConvolutions(BasePass):
    """Rewrites eligible 3×3 stride-1 convolutions as Winograd F(4×4, 3×3) (see the module docstring)."""

    name = "winograd_convolutions"

    def run(self, program: ProgramGraph) -> None:
        """Each convolution in order; the rule is the module docstring's."""
        if program.precision != "f32":
            return
        changed = False
        for node in list(program.order):
            self.node = node.id
            weights = _weights(program, node)
            if weights is not None:
                changed |= _rewrite(program, node, weights)
        if changed:
            program.order = topological_order(program.nodes)


def _weights(program: ProgramGraph, node: ProgramNode) -> np.ndarray | None:
    """The (OC, C, 3, 3) filters of an eligible convolution (before the kernel check), or None."""
    if node.kind != "convolution" or node.constant or node.id in program.forced_impls:
        return None
    a = node.primitive.attrs()
    if not isinstance(a, ConvolutionAttrs) or a.stride != (1, 1) or a.dilation != (1, 1) or a.groups != 1 \
            or a.block_diagonal != 1:
        return None
    x, out = node.dependencies[0].layout(), node.layout()
    if x.rank != 4 or out.rank != 4 or x.dtype != DataType.f32 or out.dtype != DataType.f32:
        return None
    if x.format == BLOCKED and out.format == BLOCKED:
        if x.shape[1] % 16 or out.shape[1] % 16:
            return None
    elif not (program.engine.kind == "cpu" and x.format == PLAIN and out.format == PLAIN):
        return None
    w = node.dependencies[1]
    while w.kind == "reorder" and len(w.dependencies) == 1 and w.constant and not w.fused_ops:
        w = w.dependencies[0]
    if not isinstance(w.primitive, Data) or w.primitive.array.shape != (out.shape[1], x.shape[1], 3, 3):
        return None
    n_tiles = out.shape[0] * tiles(out.shape[2]) * tiles(out.shape[3])
    if n_tiles < MIN_TILES or n_tiles * out.shape[1] < MIN_PRODUCTS:
        return None
    if x.format == PLAIN and x.shape[1] * out.shape[1] < min_macs_per_value_plain(n_tiles, cpu_lanes()) * (
            x.shape[1] + out.shape[1]):
        return None
    if x.format == PLAIN and cpu_lanes() >= 16 and cpu_full_rate() and \
            tiles(out.shape[2]) * tiles(out.shape[3]) < MIN_IMAGE_TILES_FULL_RATE:
        return None
    return w.primitive.array


def cpu_lanes() -> int:
    """The float vector width of the CPU engine's numba kernels on this host (8 with AVX2, 16 with AVX-512); a
    function so tests can set it. Imported here, not at the top: it loads numba, which OpenCL-only programs skip."""
    from kernel_selector.common.cpu_microkernel import W

    return W


def cpu_full_rate() -> bool:
    """Whether this host's 512-bit FMAs run at full rate (``kernel_selector.common.cpu_fma_rate.full_rate_512``); a
    function so tests can set it, imported lazily as :func:`cpu_lanes`."""
    from kernel_selector.common.cpu_fma_rate import full_rate_512

    return full_rate_512()


def _fresh(program: ProgramGraph, base: str) -> str:
    pid = base
    while pid in program.nodes:
        pid += "_"
    return pid


def _packed_constant(program: ProgramGraph, uid: str, values: np.ndarray, fmt: Format
                     ) -> tuple[ProgramNode, ProgramNode]:
    """A Data node ``uid`` of ``values`` and a constant Reorder of it to ``fmt`` (folded at build by
    propagate_constants); the caller sets the reorder's users."""
    u = ProgramNode(Data(uid, values), constant=True, optimized_out=True)
    pk = ProgramNode(Reorder(_fresh(program, f"{uid}__{fmt.value}"), uid, format=fmt), dependencies=[u],
                     constant=True)
    u.users = [pk]
    return u, pk


def _rewrite(program: ProgramGraph, node: ProgramNode, weights: np.ndarray) -> bool:
    """Build the three nodes, ask the kernel_selector for each, then swap them in; False (nothing changed) when a
    node has no fast kernel."""
    a = node.primitive.attrs()
    assert isinstance(a, ConvolutionAttrs)
    x = node.dependencies[0]
    own = len(node.primitive.dependencies())
    bias = node.dependencies[2] if own == 3 else None
    extras = node.dependencies[own:]
    n, oc, oh, ow = node.layout().shape
    ty, tx = tiles(oh), tiles(ow)
    assert ty * TILE >= oh and tx * TILE >= ow
    vid, uid, mid = (_fresh(program, f"{node.id}__winograd_{s}") for s in ("v", "u", "m"))
    cm = node.layout().format == PLAIN  # the CPU engine's channel-major form (ops/winograd.py)
    v = ProgramNode(WinogradInput(vid, x.id, pad_y=a.pad[0], pad_x=a.pad[1], tiles_y=ty, tiles_x=tx,
                                  channel_major=cm), dependencies=[x])
    if cm:  # the 36 products as one 1×1 convolution with 36 groups, its weights packed as reorder_inputs would
        u, pk = _packed_constant(program, uid, winograd_weights_grouped(weights), PACKED_WEIGHTS)
        m = ProgramNode(Convolution(mid, vid, weights=pk.id, groups=ALPHA * ALPHA), dependencies=[v, pk])
        pk.users = [m]
        consts = [u, pk]
    elif U_PANELS:  # U transposed (36, OC, C), stored as 16-column panels (b_fs_yx_fsv16): read in place
        ut = np.ascontiguousarray(winograd_weights(weights).transpose(0, 2, 1))
        u, pk = _packed_constant(program, uid, ut, BLOCKED)
        m = ProgramNode(Gemm(mid, (vid, pk.id), transpose_b=True), dependencies=[v, pk])
        pk.users = [m]
        consts = [u, pk]
    else:
        u = ProgramNode(Data(uid, winograd_weights(weights)), constant=True, optimized_out=True)
        m = ProgramNode(Gemm(mid, (vid, uid)), dependencies=[v, u])
        u.users = [m]
        consts = [u]
    v.users = [m]
    y = ProgramNode(WinogradOutput(node.id, mid, bias=bias.id if bias else None, out_y=oh, out_x=ow, tiles_y=ty,
                                   tiles_x=tx, format=node.layout().format, channel_major=cm),
                    dependencies=[m] + ([bias] if bias else []) + extras, users=list(node.users),
                    fused_ops=[dataclasses.replace(op, dep_indices=[i - 1 for i in op.dep_indices])
                               for op in node.fused_ops],
                    is_output=node.is_output, forced_format=node.forced_format, forced_dtype=node.forced_dtype)
    m.users = [y]
    for new in (v, *consts, m, y):
        new.output_layout = new.primitive.calc_output_layout([d.layout() for d in new.dependencies])
    if any(best_fast_kernel(node_params(program, new)) is None for new in (v, m, y)):
        return False
    # swap in: x feeds v instead of the convolution; bias and extras feed y; users read y; the filters' chain
    # (Data, and a packing reorder) goes when nothing else reads it
    w = node.dependencies[1]
    x.users = [v if u_ is node else u_ for u_ in x.users]
    for d in ([bias] if bias else []) + extras:
        d.users = [y if u_ is node else u_ for u_ in d.users]
    for user in node.users:
        user.dependencies = [y if d is node else d for d in user.dependencies]
    w.users = [u_ for u_ in w.users if u_ is not node]
    node.dependencies, node.users = [], []
    program.nodes[node.id] = y
    for new in (v, *consts, m):
        program.nodes[new.id] = new
    while not w.users and not w.is_output and w.id in program.nodes:
        up = w.dependencies[0] if w.dependencies else None
        program.removed[w.id] = (w.kind, "")
        remove_node(program.nodes, w)
        if up is None:
            break
        w = up
    return True
