"""Conv → Convolution and ConvTranspose → Deconvolution: 2-D directly; 1-D lifted to 2-D with Reshapes; 3-D as one
2-D Convolution / Deconvolution with the depth taps stacked on the channels (``nn_conv3d.py``)."""

from __future__ import annotations

from typing import Any

from ...errors import UnsupportedError
from ...primitives.convolution import Convolution
from ...primitives.deconvolution import Deconvolution
from . import converter
from .nn_common import ints, optional_input, reshape_to, resolve_pads, spatial_rank, where
from .nn_conv3d import conv3d, conv_transpose3d


def _kernel(ctx: Any, node: Any, a: dict[str, Any], w_shape: tuple[int, ...], n: int) -> list[int]:
    """The spatial kernel sizes from W, checked against the ``kernel_shape`` attribute when given."""
    k = list(w_shape[2:])
    if len(k) != n:
        raise UnsupportedError(f"{where(node)}: weights shape {w_shape} does not have {n} spatial dimensions")
    if "kernel_shape" in a and [int(i) for i in a["kernel_shape"]] != k:
        raise UnsupportedError(f"{where(node)}: kernel_shape {a['kernel_shape']} differs from the weights' "
                               f"spatial shape {k}")
    return k


def _lift(ctx: Any, node: Any, x: str, w: str, n: int) -> tuple[str, str]:
    """Primitive ids of x and W, viewed 2-D (a trailing spatial dimension of 1) when the op is 1-D."""
    if n == 2:
        return ctx.ref(x), ctx.ref(w)
    return (reshape_to(ctx, node, x, ctx.shape(x) + (1,)), reshape_to(ctx, node, w, ctx.shape(w) + (1,)))


def _onnx_yx(v: list[int], fill: int) -> tuple[int, int]:
    """An ONNX per-axis attribute list of a 1-D or 2-D op (strides, dilations, pads) as (y, x); a 1-D op's single
    value is y and x gets ``fill`` (1 for strides and dilations, 0 for pads)."""
    return (v[0], v[1]) if len(v) == 2 else (v[0], fill)


@converter("Conv", versions=(1, 11, 22))
def conv(ctx: Any, node: Any) -> None:
    """Conv → Convolution: group, dilations, strides, pads (asymmetric), auto_pad, optional bias; W may be a
    constant or a tensor computed at run time (OIHW). 1-D convolutions run as 2-D on (N, C, L, 1) views, 3-D ones
    as one 2-D convolution of the depth taps stacked on the channels (:func:`nn_conv3d.conv3d`)."""
    x, w, b = node.input[0], node.input[1], optional_input(node, 2)
    n = spatial_rank(ctx, node, x, supported=(1, 2, 3))
    a = ctx.attrs(node)
    k = _kernel(ctx, node, a, ctx.shape(w), n)
    strides, dil = ints(a, "strides", n, 1), ints(a, "dilations", n, 1)
    ext = [(ki - 1) * d + 1 for ki, d in zip(k, dil)]
    pb, pe = resolve_pads(node, a, list(ctx.shape(x)[2:]), ext, strides)
    if n == 3:
        conv3d(ctx, node, k, strides, dil, pb, pe, int(a.get("group", 1)))
        return
    xi, wi = _lift(ctx, node, x, w, n)
    out = node.output[0] if n == 2 else ctx.fresh(node.output[0])
    ctx.add(Convolution(out, xi, weights=wi, bias=ctx.ref(b) if b else None, stride=_onnx_yx(strides, 1),
                        dilation=_onnx_yx(dil, 1), pad=_onnx_yx(pb, 0), pad_end=_onnx_yx(pe, 0),
                        groups=int(a.get("group", 1))))
    if n == 1:
        reshape_to(ctx, node, out, ctx.layouts[out].shape[:3], out_id=node.output[0])


def convtranspose_pads(node: Any, a: dict[str, Any], sizes: list[int], k: list[int], strides: list[int],
                       dil: list[int], out_pad: list[int]) -> tuple[list[int], list[int], list[int]]:
    """(begin pads, end pads, output padding) of an ONNX ConvTranspose.

    With ``output_shape`` (or auto_pad SAME_*, whose output_shape is size·stride) the total padding is
    stride·(size − 1) + output_padding + (k − 1)·dilation + 1 − output_shape, split with the odd one at the end
    for SAME_UPPER and at the beginning otherwise (the ONNX spec; onnxruntime agrees); a negative total (an output
    larger than the full result) extends the output at the end. Otherwise VALID pads nothing and NOTSET takes
    ``pads``.
    """
    n = len(sizes)
    mode = a.get("auto_pad", "NOTSET") or "NOTSET"
    if mode not in ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"):
        raise UnsupportedError(f"{where(node)}: auto_pad '{mode}' is not one of NOTSET, SAME_UPPER, SAME_LOWER, "
                               "VALID")
    target = None
    if a.get("output_shape") is not None:
        target = [int(i) for i in a["output_shape"]][-n:]
    elif mode in ("SAME_UPPER", "SAME_LOWER"):
        target = [s * st for s, st in zip(sizes, strides)]
    if target is None:
        if mode == "VALID":
            return [0] * n, [0] * n, out_pad
        pads = ints(a, "pads", 2 * n, 0)
        return pads[:n], pads[n:], out_pad
    pb, pe, op = [], [], []
    for i in range(n):
        total = strides[i] * (sizes[i] - 1) + out_pad[i] + (k[i] - 1) * dil[i] + 1 - target[i]
        if total < 0:
            pb.append(0)
            pe.append(0)
            op.append(out_pad[i] - total)
            continue
        half = total // 2
        pb.append(half if mode == "SAME_UPPER" else total - half)
        pe.append(total - pb[-1])
        op.append(out_pad[i])
    return pb, pe, op


@converter("ConvTranspose", versions=(1, 11, 22))
def conv_transpose(ctx: Any, node: Any) -> None:
    """ConvTranspose → Deconvolution: strides, pads, output_padding, output_shape, dilations, group, auto_pad,
    optional bias; W (C, M/group, kH, kW) constant or computed. 1-D runs as 2-D on (N, C, L, 1) views, 3-D as one
    2-D Deconvolution of the depth taps stacked on the channels (:func:`nn_conv3d.conv_transpose3d`)."""
    x, w, b = node.input[0], node.input[1], optional_input(node, 2)
    n = spatial_rank(ctx, node, x, supported=(1, 2, 3))
    a = ctx.attrs(node)
    k = _kernel(ctx, node, a, ctx.shape(w), n)
    strides, dil = ints(a, "strides", n, 1), ints(a, "dilations", n, 1)
    out_pad = ints(a, "output_padding", n, 0)
    pb, pe, op = convtranspose_pads(node, a, list(ctx.shape(x)[2:]), k, strides, dil, out_pad)
    if n == 3:
        conv_transpose3d(ctx, node, k, strides, dil, pb, pe, op, int(a.get("group", 1)))
        return
    xi, wi = _lift(ctx, node, x, w, n)
    out = node.output[0] if n == 2 else ctx.fresh(node.output[0])
    ctx.add(Deconvolution(out, xi, weights=wi, bias=ctx.ref(b) if b else None, stride=_onnx_yx(strides, 1),
                          dilation=_onnx_yx(dil, 1), pad=_onnx_yx(pb, 0), pad_end=_onnx_yx(pe, 0),
                          output_padding=_onnx_yx(op, 0), groups=int(a.get("group", 1))))
    if n == 1:
        reshape_to(ctx, node, out, ctx.layouts[out].shape[:3], out_id=node.output[0])
