"""3-D Conv and ConvTranspose (input (N, C, D, H, W)) as ONE 2-D Convolution / Deconvolution over (H, W), with the
depth taps folded into the channels. Called by ``nn_conv.py`` once it has resolved the attributes; registers no
converter.

Conv. With groups G, Cg = C/G, kernel kD along D, stride sd, dilation dd and D padded by (pb, pe), output depth
Do = (D + pb + pe − ((kD − 1)·dd + 1)) // sd + 1. Output depth o reads input depths o·sd + i·dd (padded
coordinates) for the taps i = 0..kD−1, so

    y[n, m, o] = Σ_i Conv2D_{W[:, :, i]}(x_padded[n, :, o·sd + i·dd])     (each term a 2-D convolution over (H, W))

and the kD terms are one 2-D convolution of the depth slices stacked on the channels: the input is moved to
(N, D, C, H·W) (one Permute), D is padded (a Pad of zeros), tap i is the slice starting at i·dd with step sd and Do
elements (a Crop or StridedSlice), and the kD slices are concatenated as (N·Do, G, kD, Cg, H·W), i.e. batch N·Do
and channels in (G, kD, Cg) order so that each group of the 2-D convolution holds its own kD·Cg channels. The
weights (M, Cg, kD, kH, kW) become (M, kD·Cg, kH, kW) in the same (kD, Cg) order (numpy at import, or a Permute when
they are computed at run time). The 2-D convolution takes the H/W strides, dilations, pads and the bias; its
output (N·Do, M, Ho, Wo) is permuted back to (N, M, Do, Ho, Wo).

ConvTranspose (W is (C, M/G, kD, kH, kW)). Along D a transposed convolution is a stride-1 convolution of the input
with sd − 1 zeros inserted between depths, padded by P = (kD − 1)·dd − pb at the beginning and
(kD − 1)·dd − pe + output_padding at the end, with the taps in flipped order:

    y[n, :, o] = Σ_kd Deconv2D_{W[:, :, kd]}(z[n, :, o + (kD − 1 − kd)·dd])    (z: zero-inserted and padded x)

(the full output position of input depth j and tap kd is j·sd + kd·dd, ONNX's definition). The zeros are inserted
by a Pad of a (N·D, 1, C·H·W) view to (N·D, sd, C·H·W); negative paddings (pads larger than the dilated kernel)
become offsets of the slices. The stacked slices (N·Do, G·kD·Cg, H, W) meet weights reordered to
(G·kD·Cg, M/G, kH, kW) and one 2-D Deconvolution does H and W with its own strides, pads, dilations,
output_padding and the bias.

Cost. The 2-D convolution performs exactly the multiply-adds of the 3-D one (N·Do·M·Ho·Wo·kD·Cg·kH·kW); for
ConvTranspose with sd > 1 the inserted zeros add multiply-adds by zero along D (about sd times the useful ones).
Memory: the stacked copy holds kD·Do/D times the input (about kD/sd for Conv, kD·sd for ConvTranspose), plus the
permuted and padded (zero-inserted) input. Source of the decomposition: the definitions of Conv and ConvTranspose
in the ONNX operator spec, the sums above split over the depth taps.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ShapeError
from ...primitives.concatenation import Concatenation
from ...primitives.convolution import Convolution
from ...primitives.deconvolution import Deconvolution
from ...primitives.pad import Pad
from .movement import permute_to
from .movement import reshape_to as view_as
from .nn_common import const_data, optional_input, reshape_to, where
from .slicing import add_slice


def _depth_major(ctx: Any, node: Any, x: str) -> str:
    """The id of x (N, C, D, H, W) moved to (N, D, C, H·W): a Permute of a (N, C, D, H·W) view (no kernel when
    C or D is 1)."""
    nb, c, d, h, w = ctx.shape(x)
    src = reshape_to(ctx, node, x, (nb, c, d, h * w))
    out = ctx.fresh(node.output[0] + "_dhw")
    permute_to(ctx, out, src, (0, 2, 1, 3), node)
    return ctx.ref(out)


def _insert_zeros(ctx: Any, node: Any, src: str, stride: int) -> str:
    """``src`` (N, D, C, HW) with ``stride − 1`` zero depths after every depth: (N, D·stride, C, HW), the last
    stride − 1 depths zeros too (a Pad of a (N·D, 1, C·HW) view)."""
    nb, d, c, hw = ctx.layouts[src].shape
    if stride == 1:
        return src
    v = reshape_to(ctx, node, src, (nb * d, 1, c * hw))
    p = ctx.add(Pad(ctx.fresh(node.output[0] + "_zeros"), v, pads_begin=(0, 0, 0), pads_end=(0, stride - 1, 0)))
    return reshape_to(ctx, node, p, (nb, d * stride, c, hw))


def _stack_taps(ctx: Any, node: Any, src: str, pad: tuple[int, int], starts: list[int], step: int, count: int,
                groups: int, hw: tuple[int, int]) -> str:
    """The depth taps of ``src`` (N, L, C, H·W) stacked on the channels: (N·count, G·kD·Cg, H, W).

    Depths are padded by ``pad`` (begin, end) with zeros; tap t is the slice of the padded depths starting at
    ``starts[t]`` with ``step`` and ``count`` elements. Channel (g, t, c) of the result is channel g·Cg + c of tap
    t. Negative pads are not materialized: they shift the slices. Raises ShapeError naming the node when a slice
    leaves the padded depths (the caller's sizes are inconsistent).
    """
    nb, length, c, hwn = ctx.layouts[src].shape
    pb, pe = pad
    if pb > 0 or pe > 0:
        src = ctx.add(Pad(ctx.fresh(node.output[0] + "_dpad"), src, pads_begin=(0, max(pb, 0), 0, 0),
                          pads_end=(0, max(pe, 0), 0, 0)))
    off, padded = max(-pb, 0), length + max(pb, 0) + max(pe, 0)
    cg = c // groups
    views = []
    for s in starts:
        begin = off + s
        end = begin + (count - 1) * step + 1
        if begin < 0 or end > padded or count < 1:
            raise ShapeError(f"{where(node)}: depth tap [{begin}:{end}:{step}] is outside the {padded} padded "
                             "depths")
        tap = ctx.fresh(node.output[0] + "_tap")
        add_slice(ctx, tap, src, [0, begin, 0, 0], [nb, end, c, hwn], [1, step, 1, 1], node)
        views.append(reshape_to(ctx, node, tap, (nb * count * groups, 1, cg * hwn)))
    stacked = views[0] if len(views) == 1 else ctx.add(
        Concatenation(ctx.fresh(node.output[0] + "_taps"), views, axis=1))
    return reshape_to(ctx, node, stacked, (nb * count, groups * len(starts) * cg) + hw)


def _weights(ctx: Any, node: Any, w: str, view: tuple[int, ...], perm: tuple[int, ...],
             shape: tuple[int, ...]) -> str:
    """The id of weights ``w`` viewed as ``view``, transposed by ``perm`` and reshaped to ``shape``: numpy at
    import for a constant, a Permute for weights computed at run time."""
    if ctx.is_const(w):
        arr = np.transpose(np.asarray(ctx.const(w)).reshape(view), perm).reshape(shape)
        return const_data(ctx, w, arr)
    v = reshape_to(ctx, node, w, view)
    t = ctx.fresh(w + "_taps")
    permute_to(ctx, t, v, perm, node)
    return reshape_to(ctx, node, t, shape)


def _to_ncdhw(ctx: Any, node: Any, out: str, nb: int, d: int) -> None:
    """node.output[0] (N, M, D, Ho, Wo) from the 2-D result ``out`` (N·D, M, Ho, Wo)."""
    _, m, ho, wo = ctx.layouts[out].shape
    v = reshape_to(ctx, node, out, (nb, d, m, ho * wo))
    t = ctx.fresh(node.output[0] + "_mdhw")
    permute_to(ctx, t, v, (0, 2, 1, 3), node)
    view_as(ctx, node.output[0], t, (nb, m, d, ho, wo), node)


def conv3d(ctx: Any, node: Any, k: list[int], strides: list[int], dil: list[int], pb: list[int], pe: list[int],
           groups: int) -> None:
    """A 3-D ONNX Conv node → Permute, Pad, depth slices, Concatenation, one 2-D Convolution, Permute back.

    x (N, C, D, H, W), W (M, C/groups, kD, kH, kW) constant or computed, optional bias (M,); ``k``, ``strides``,
    ``dil``, ``pb``/``pe`` (begin/end pads) are resolved (d, h, w) values. Output (N, M, Do, Ho, Wo) as ONNX
    defines it. Raises ShapeError naming the node when the padded depth is smaller than the dilated kernel or C is
    not divisible by ``groups``.
    """
    x, w, b = node.input[0], node.input[1], optional_input(node, 2)
    nb, c, d, h, wd = ctx.shape(x)
    m = ctx.shape(w)[0]
    kd = k[0]
    ext = (kd - 1) * dil[0] + 1
    do = (d + pb[0] + pe[0] - ext) // strides[0] + 1
    if c % groups or d + pb[0] + pe[0] < ext:
        raise ShapeError(f"{where(node)}: input {ctx.shape(x)} with group {groups}: expected C divisible by the "
                         f"group and a padded depth {d} + {pb[0]} + {pe[0]} of at least the dilated kernel {ext}")
    cg = c // groups
    taps = _stack_taps(ctx, node, _depth_major(ctx, node, x), (pb[0], pe[0]), [i * dil[0] for i in range(kd)],
                       strides[0], do, groups, (h, wd))
    wi = _weights(ctx, node, w, (m, cg, kd, k[1] * k[2]), (0, 2, 1, 3), (m, kd * cg, k[1], k[2]))
    out = ctx.add(Convolution(ctx.fresh(node.output[0] + "_2d"), taps, weights=wi, bias=ctx.ref(b) if b else None,
                              stride=(strides[1], strides[2]), dilation=(dil[1], dil[2]), pad=(pb[1], pb[2]),
                              pad_end=(pe[1], pe[2]), groups=groups))
    _to_ncdhw(ctx, node, out, nb, do)


def conv_transpose3d(ctx: Any, node: Any, k: list[int], strides: list[int], dil: list[int], pb: list[int],
                     pe: list[int], out_pad: list[int], groups: int) -> None:
    """A 3-D ONNX ConvTranspose node → Permute, zero insertion along D (Pad), depth slices in flipped tap order,
    Concatenation, one 2-D Deconvolution, Permute back.

    x (N, C, D, H, W), W (C, M/groups, kD, kH, kW) constant or computed, optional bias (M,); ``pb``/``pe``/
    ``out_pad`` are the resolved (d, h, w) pads and output padding (``nn_conv.convtranspose_pads``: output_shape
    and auto_pad already applied). Output depth sd·(D − 1) + output_padding + (kD − 1)·dd + 1 − pb − pe. Raises
    ShapeError naming the node when that depth is below 1 or C is not divisible by ``groups``.
    """
    x, w, b = node.input[0], node.input[1], optional_input(node, 2)
    nb, c, d, h, wd = ctx.shape(x)
    mg = ctx.shape(w)[1]
    kd, sd, dd = k[0], strides[0], dil[0]
    do = sd * (d - 1) + out_pad[0] + (kd - 1) * dd + 1 - pb[0] - pe[0]
    if c % groups or do < 1:
        raise ShapeError(f"{where(node)}: input {ctx.shape(x)} with group {groups}: expected C divisible by the "
                         f"group and an output depth of at least 1, got {do}")
    cg = c // groups
    z = _insert_zeros(ctx, node, _depth_major(ctx, node, x), sd)
    full = (kd - 1) * dd
    pad = (full - pb[0], full - pe[0] + out_pad[0] - (sd - 1))   # the zero-inserted z has sd − 1 extra depths
    taps = _stack_taps(ctx, node, z, pad, [(kd - 1 - t) * dd for t in range(kd)], 1, do, groups, (h, wd))
    wi = _weights(ctx, node, w, (groups, cg, mg, kd, k[1] * k[2]), (0, 3, 1, 2, 4), (groups * kd * cg, mg, k[1], k[2]))
    out = ctx.add(Deconvolution(ctx.fresh(node.output[0] + "_2d"), taps, weights=wi,
                                bias=ctx.ref(b) if b else None, stride=(strides[1], strides[2]),
                                dilation=(dil[1], dil[2]), pad=(pb[1], pb[2]), pad_end=(pe[1], pe[2]),
                                output_padding=(out_pad[1], out_pad[2]), groups=groups))
    _to_ncdhw(ctx, node, out, nb, do)
