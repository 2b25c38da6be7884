"""MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool → Pooling.

2-D pools map directly; 1-D pools run as 2-D on a (N, C, L, 1) view; 3-D pools run as two 2-D poolings, because
a box window is separable for max and for both averages: (N, C·D, H, W) pooled over (h, w), then
(N, C, D, H'·W') pooled over d. The maximum of maxima is the maximum; for the averages the divisor of a box is
the product of its per-axis counts (taps inside the padded extent for count_include_pad=1, valid taps for 0),
so the average over d of the averages over (h, w) is the box average; ceil mode and dilation are per axis too.
"""

from __future__ import annotations

from typing import Any

from ...errors import UnsupportedError
from ...primitives.pooling import Pooling, PoolingMode
from . import converter
from .nn_common import ints, reshape_to, resolve_pads, spatial_rank, where


def _pool(ctx: Any, node: Any, mode: PoolingMode) -> None:
    """A windowed pooling node (kernel_shape, strides, pads, auto_pad, ceil_mode, dilations) → Pooling."""
    x = node.input[0]
    n = spatial_rank(ctx, node, x, supported=(1, 2, 3))
    a = ctx.attrs(node)
    if "kernel_shape" not in a:
        raise UnsupportedError(f"{where(node)}: the kernel_shape attribute is required")
    k = [int(i) for i in a["kernel_shape"]]
    if len(k) != n:
        raise UnsupportedError(f"{where(node)}: kernel_shape {k} does not match the {n}-D input")
    strides, dil = ints(a, "strides", n, 1), ints(a, "dilations", n, 1)
    ext = [(ki - 1) * d + 1 for ki, d in zip(k, dil)]
    pb, pe = resolve_pads(node, a, list(ctx.shape(x)[2:]), ext, strides)
    same = (a.get("auto_pad") or "NOTSET") in ("SAME_UPPER", "SAME_LOWER")
    ceil_mode = bool(a.get("ceil_mode", 0)) and not same   # SAME fixes the output to ceil(size / stride)
    shape = ctx.shape(x)

    def pool(out: str, src: str, axes: list[int]) -> str:
        """Pooling of ``src`` over the spatial axes ``axes`` (one or two of 0..n-1; one gets x = 1)."""
        def pick(v: list[int], fill: int) -> tuple[int, int]:
            return (v[axes[0]], v[axes[1]]) if len(axes) == 2 else (v[axes[0]], fill)
        return ctx.add(Pooling(out, src, mode=mode, kernel=pick(k, 1), stride=pick(strides, 1),
                               pad=pick(pb, 0), pad_end=pick(pe, 0), dilation=pick(dil, 1), ceil_mode=ceil_mode))

    if n == 2:
        pool(node.output[0], ctx.ref(x), [0, 1])
    elif n == 1:
        out = pool(ctx.fresh(node.output[0]), reshape_to(ctx, node, x, shape + (1,)), [0])
        reshape_to(ctx, node, out, ctx.layouts[out].shape[:3], out_id=node.output[0])
    else:
        nb, c, d = shape[:3]
        hw = pool(ctx.fresh(node.output[0]), reshape_to(ctx, node, x, (nb, c * d) + shape[3:]), [1, 2])
        oh, ow = ctx.layouts[hw].shape[2:]
        dd = pool(ctx.fresh(node.output[0]), reshape_to(ctx, node, hw, (nb, c, d, oh * ow)), [0])
        reshape_to(ctx, node, dd, (nb, c, ctx.layouts[dd].shape[2], oh, ow), out_id=node.output[0])


@converter("MaxPool", versions=(1, 8, 10, 11, 12, 22))
def max_pool(ctx: Any, node: Any) -> None:
    """MaxPool → Pooling max, with ceil_mode and dilations. The optional Indices output is refused (storage_order
    only affects it)."""
    if len(node.output) > 1 and node.output[1]:
        raise UnsupportedError(f"{where(node)}: the Indices output (argmax) of MaxPool is not supported; "
                               "use the values output only")
    _pool(ctx, node, PoolingMode.max)


@converter("AveragePool", versions=(7, 10, 11, 19, 22))
def average_pool(ctx: Any, node: Any) -> None:
    """AveragePool → Pooling average (count_include_pad=1) or average_no_padding (0), ceil_mode, dilations."""
    count_pad = int(ctx.attrs(node).get("count_include_pad", 0))
    _pool(ctx, node, PoolingMode.average if count_pad else PoolingMode.average_no_padding)


def _global(ctx: Any, node: Any, mode: PoolingMode) -> None:
    """Global pooling of (N, C, spatial...) → Pooling(global_pooling=True) on a (N, C, prod(spatial), 1) view when
    the input is not 4-D; the output is (N, C, 1, ...)."""
    x = node.input[0]
    shape = ctx.shape(x)
    if len(shape) < 3:
        raise UnsupportedError(f"{where(node)}: input {shape} needs at least one spatial dimension")
    if len(shape) == 4:
        ctx.add(Pooling(node.output[0], ctx.ref(x), mode=mode, global_pooling=True))
        return
    spatial = 1
    for s in shape[2:]:
        spatial *= s
    xi = reshape_to(ctx, node, x, (shape[0], shape[1], spatial, 1))
    out = ctx.add(Pooling(ctx.fresh(node.output[0]), xi, mode=mode, global_pooling=True))
    reshape_to(ctx, node, out, shape[:2] + (1,) * (len(shape) - 2), out_id=node.output[0])


@converter("GlobalAveragePool", versions=(1, 22))
def global_average_pool(ctx: Any, node: Any) -> None:
    """GlobalAveragePool → Pooling average over the whole spatial extent."""
    _global(ctx, node, PoolingMode.average)


@converter("GlobalMaxPool", versions=(1, 22))
def global_max_pool(ctx: Any, node: Any) -> None:
    """GlobalMaxPool → Pooling max over the whole spatial extent."""
    _global(ctx, node, PoolingMode.max)
