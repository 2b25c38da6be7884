"""Helpers shared by the nn-op converters (nn_conv, nn_pool, nn_gemm, nn_norm, nn_softmax): op versions,
spatial attributes, ONNX auto_pad, constants and reshapes. Registers no converter."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TopologyError, UnsupportedError
from ...primitives.data import Data
from ...primitives.reshape import Reshape
from ..onnx_context import to_device_array


def since_version(ctx: Any, node: Any) -> int:
    """The since-version of the node's operator schema at the model's opset (e.g. Softmax at opset 12 -> 11)."""
    import onnx.defs

    return onnx.defs.get_schema(node.op_type, ctx.opset).since_version


def where(node: Any) -> str:
    """``Op 'name'`` for messages (the node name, or its first output when it has none)."""
    return f"{node.op_type} '{node.name or node.output[0]}'"


def optional_input(node: Any, i: int) -> str | None:
    """Input ``i`` of the node, or None when it is absent or empty (an omitted optional input)."""
    return node.input[i] if len(node.input) > i and node.input[i] else None


def spatial_rank(ctx: Any, node: Any, x: str, supported: tuple[int, ...] = (1, 2)) -> int:
    """Number of spatial dimensions of N-C-spatial input ``x``; raises UnsupportedError outside ``supported``."""
    shape = ctx.shape(x)
    n = len(shape) - 2
    if n not in supported:
        dims = "/".join(f"{s}-D" for s in supported)
        raise UnsupportedError(f"{where(node)}: {n}-D spatial input {shape} is not supported (only {dims})")
    return n


def ints(a: dict[str, Any], name: str, n: int, default: int) -> list[int]:
    """Integer-list attribute ``name`` of length ``n`` (``default`` repeated when absent)."""
    v = a.get(name)
    return [default] * n if v is None else [int(i) for i in v]


def resolve_pads(node: Any, a: dict[str, Any], sizes: list[int], extents: list[int],
                 strides: list[int]) -> tuple[list[int], list[int]]:
    """(begin pads, end pads) of a convolution or pooling window from ``auto_pad`` and ``pads``.

    ``extents`` are the dilated window sizes (k - 1)·d + 1. SAME_UPPER / SAME_LOWER make the output
    ceil(size / stride) with total padding max(0, (out - 1)·stride + extent - size), the odd one at the end
    (UPPER) or the beginning (LOWER); VALID pads nothing; NOTSET takes ``pads`` = [b1, b2, .., e1, e2, ..].
    """
    n = len(sizes)
    mode = a.get("auto_pad", "NOTSET") or "NOTSET"
    if mode == "NOTSET":
        pads = ints(a, "pads", 2 * n, 0)
        if len(pads) != 2 * n:
            raise UnsupportedError(f"{where(node)}: pads {pads} must hold {2 * n} values")
        return pads[:n], pads[n:]
    if mode == "VALID":
        return [0] * n, [0] * n
    if mode not in ("SAME_UPPER", "SAME_LOWER"):
        raise UnsupportedError(f"{where(node)}: auto_pad '{mode}' is not one of NOTSET, SAME_UPPER, SAME_LOWER, "
                               "VALID")
    pb, pe = [], []
    for size, ext, s in zip(sizes, extents, strides):
        out = -(-size // s)
        total = max(0, (out - 1) * s + ext - size)
        small = total // 2
        pb.append(small if mode == "SAME_UPPER" else total - small)
        pe.append(total - pb[-1])
    return pb, pe


def const_data(ctx: Any, base: str, array: np.ndarray) -> str:
    """Add a constant as a new Data primitive (floats as f32); returns its id."""
    arr = to_device_array(np.asarray(array))
    return ctx.add(Data(ctx.fresh(base), arr.reshape(1) if arr.ndim == 0 else arr))


def reshape_to(ctx: Any, node: Any, tensor: str, shape: tuple[int, ...], out_id: str | None = None) -> str:
    """The id of ``tensor`` (an ONNX tensor name or a primitive id) seen with ``shape``: a new constant when it is
    one, itself when the shape already matches, else a Reshape named ``out_id`` (or a fresh id). Raises
    UnsupportedError when the Reshape primitive cannot take the rank."""
    shape = tuple(int(s) for s in shape)
    if out_id is None and ctx.is_const(tensor):
        return const_data(ctx, tensor, ctx.const(tensor).reshape(shape))
    src = ctx.ref(tensor)  # an ONNX tensor name or an intermediate primitive id
    if out_id is None and ctx.layouts[src].shape == shape:
        return src
    try:
        return ctx.add(Reshape(out_id or ctx.fresh(src), src, shape))
    except TopologyError as e:
        raise UnsupportedError(f"{where(node)}: cannot view {ctx.layouts[src].shape} as {shape}: {e}") from None
