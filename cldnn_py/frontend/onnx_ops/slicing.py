"""Operators that select or repeat regions of a tensor: Slice, Split, Gather (select), Pad, Expand, Tile (grow).

Slices with unit steps on tensors of rank <= 4 become ``Crop`` (clDNN's split/crop primitive); other slices a
``StridedSlice``. Index-like inputs (starts, ends, axes, steps, split, pads, shape, repeats) must be constants;
Gather's indices may be constants or run-time i32 tensors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import UnsupportedError
from ...primitives.broadcast import Broadcast
from ...primitives.crop import Crop
from ...primitives.gather import Gather
from ...primitives.pad import Pad
from ...primitives.strided_slice import StridedSlice, slice_ranges
from ...primitives.tile import Tile
from . import converter


def _ints(ctx: Any, node: Any, index: int) -> list[int] | None:
    """Constant input ``index`` as a list of ints, or None when absent."""
    if len(node.input) > index and node.input[index]:
        return [int(v) for v in np.asarray(ctx.const(node.input[index])).reshape(-1)]
    return None


def add_slice(ctx: Any, out: str, src: str, begin: list[int], end: list[int], steps: list[int], node: Any) -> None:
    """Tensor ``out`` = ``src[begin:end:steps]`` (full rank, Python slice rules): an alias when it is everything,
    a Crop for unit steps at rank <= 4, else a StridedSlice. An empty result is a known (empty) constant: no
    primitive."""
    shape = ctx.shape(src)
    ranges = slice_ranges(tuple(begin), tuple(end), tuple(steps), shape)
    out_shape = tuple(len(r) for r in ranges)
    if min(out_shape) < 1:
        ctx.empty(out, out_shape, src)
        return
    if all(r.step == 1 for r in ranges):
        if out_shape == shape:
            ctx.alias(out, src)
            return
        if len(shape) <= 4:
            ctx.add(Crop(out, ctx.ref(src), shape=out_shape, offsets=tuple(r.start for r in ranges)))
            return
    ctx.add(StridedSlice(out, ctx.ref(src), begin=tuple(r.start for r in ranges),
                         end=tuple(r.stop if r.stop >= 0 else -n - 1 for r, n in zip(ranges, shape)),
                         steps=tuple(r.step for r in ranges)))


@converter("Slice", versions=(1, 10, 11, 13))
def slice_(ctx: Any, node: Any) -> None:
    """Slice: starts/ends/axes attributes (opset 1) or constant inputs with optional axes and steps (10+);
    negative values count from the end, out-of-range values are clamped, steps may be negative."""
    shape = ctx.shape(node.input[0])
    r = len(shape)
    a = ctx.attrs(node)
    if "starts" in a:
        starts, ends = [int(v) for v in a["starts"]], [int(v) for v in a["ends"]]
        axes_given, steps_given = a.get("axes"), None
    else:
        starts, ends = _ints(ctx, node, 1) or [], _ints(ctx, node, 2) or []
        axes_given, steps_given = _ints(ctx, node, 3), _ints(ctx, node, 4)
    axes = list(range(len(starts))) if axes_given is None else [int(x) % r for x in axes_given]
    steps = steps_given or [1] * len(starts)
    begin, end, step = [0] * r, [2**62] * r, [1] * r
    for ax, b, e, s in zip(axes, starts, ends, steps):
        begin[ax], end[ax], step[ax] = int(b), int(e), int(s)
    if 0 in step:
        raise UnsupportedError(f"Slice '{node.name}': steps must not be 0, got {steps}")
    add_slice(ctx, node.output[0], node.input[0], begin, end, step, node)


@converter("Split", versions=(2, 11, 13, 18))
def split(ctx: Any, node: Any) -> None:
    """Split along ``axis`` into the ``split`` sizes (attribute before 13, input after), or ``num_outputs``
    parts (18: ceil-sized, the last smaller), or equal parts; each output is a slice named by the output."""
    shape = ctx.shape(node.input[0])
    a = ctx.attrs(node)
    ax = int(a.get("axis", 0)) % len(shape)
    n = shape[ax]
    sizes = [int(v) for v in a["split"]] if "split" in a else _ints(ctx, node, 1)
    k = len(node.output)
    if sizes is None:
        if "num_outputs" in a:
            chunk = -(-n // int(a["num_outputs"]))
            sizes = [min(chunk, n - i * chunk) for i in range(int(a["num_outputs"]))]
        else:
            if n % k:
                raise UnsupportedError(f"Split '{node.name}': {n} elements do not split into {k} equal parts")
            sizes = [n // k] * k
    if sum(sizes) != n or len(sizes) != k:
        raise UnsupportedError(f"Split '{node.name}': sizes {sizes} do not cover {n} elements in {k} outputs")
    start = 0
    for out, size in zip(node.output, sizes):
        if out:
            begin, end = [0] * len(shape), list(shape)
            begin[ax], end[ax] = start, start + size
            add_slice(ctx, out, node.input[0], begin, end, [1] * len(shape), node)
        start += size


@converter("Pad", versions=(2, 11, 13, 18, 19, 21, 23, 24, 25))
def pad(ctx: Any, node: Any) -> None:
    """Pad with mode constant / reflect / edge / wrap: ``pads`` ([begins..., ends...]) and ``value`` as attributes
    (opset 2) or constant inputs (11+: ``pads``, ``constant_value``, 18+: ``axes``); negative pads crop."""
    shape = ctx.shape(node.input[0])
    r = len(shape)
    a = ctx.attrs(node)
    mode = a.get("mode", "constant")
    if "pads" in a:
        pads, value, axes = [int(p) for p in a["pads"]], float(a.get("value", 0.0)), None
    else:
        pads = _ints(ctx, node, 1) or []
        has_value = len(node.input) > 2 and node.input[2]
        value = float(np.asarray(ctx.const(node.input[2])).reshape(-1)[0]) if has_value else 0.0
        axes = _ints(ctx, node, 3)
    axes = list(range(r)) if axes is None else [x % r for x in axes]
    if len(pads) != 2 * len(axes):
        raise UnsupportedError(f"Pad '{node.name}': {len(pads)} pads for {len(axes)} axes")
    begin, end = [0] * r, [0] * r
    for i, ax in enumerate(axes):
        begin[ax], end[ax] = pads[i], pads[len(axes) + i]
    if mode not in ("constant", "reflect", "edge", "wrap"):
        raise UnsupportedError(f"Pad '{node.name}': mode {mode!r} is not supported")
    if not any(begin) and not any(end):
        ctx.alias(node.output[0], node.input[0])
        return
    ctx.add(Pad(node.output[0], ctx.ref(node.input[0]), pads_begin=tuple(begin), pads_end=tuple(end), mode=mode,
                value=value))


@converter("Expand", versions=(8, 13))
def expand(ctx: Any, node: Any) -> None:
    """Expand → broadcast to ``numpy.broadcast_shapes(input shape, shape)`` (the constant ``shape`` may itself
    hold 1s where the input is larger)."""
    shape = ctx.shape(node.input[0])
    target = _ints(ctx, node, 1) or []
    try:
        out = tuple(int(s) for s in np.broadcast_shapes(shape, tuple(target)))
    except ValueError:
        raise UnsupportedError(f"Expand '{node.name}': {shape} does not broadcast to {target}") from None
    if out == shape:
        ctx.alias(node.output[0], node.input[0])
        return
    ctx.add(Broadcast(node.output[0], ctx.ref(node.input[0]), shape=out))


@converter("Tile", versions=(6, 13))
def tile(ctx: Any, node: Any) -> None:
    """Tile with constant ``repeats`` (one per dimension) → tile."""
    reps = _ints(ctx, node, 1) or []
    if min(reps, default=1) < 1:
        raise UnsupportedError(f"Tile '{node.name}': repeats {reps} (zero-size tensors are not supported)")
    if all(r == 1 for r in reps):
        ctx.alias(node.output[0], node.input[0])
        return
    ctx.add(Tile(node.output[0], ctx.ref(node.input[0]), repeats=tuple(reps)))


@converter("Gather", versions=(1, 11, 13))
def gather(ctx: Any, node: Any) -> None:
    """Gather along ``axis`` (negative from the end); indices constant or run-time, negative ones from the end.
    A rank-0 index drops the axis."""
    shape = ctx.shape(node.input[0])
    ax = int(ctx.attrs(node).get("axis", 0)) % len(shape)
    ishape = ctx.shape(node.input[1])
    if len(shape) - 1 + len(ishape) > 6:
        raise UnsupportedError(f"Gather '{node.name}': output rank {len(shape) - 1 + len(ishape)} > 6")
    if ctx.is_const(node.input[1]):
        idx = np.asarray(ctx.const(node.input[1])).astype(np.int64)
        if idx.size == 0 or (idx < -shape[ax]).any() or (idx >= shape[ax]).any():
            raise UnsupportedError(f"Gather '{node.name}': indices must be in [{-shape[ax]}, {shape[ax]}) and "
                                   f"non-empty, got {idx.reshape(-1)[:8]}...")
    ctx.add(Gather(node.output[0], ctx.ref(node.input[0]), ctx.ref(node.input[1]), axis=ax,
                   scalar_index=len(ishape) == 0))
