"""CumSum composed of existing primitives (ONNX operator spec: running sums along ``axis``; ``exclusive`` leaves
out the element itself, ``reverse`` sums from the end).

- float32: the axis is moved last (Transpose, as ONNX Transpose converts), then one Gemm with a constant (L, L)
  0/1 matrix T, y[..., j] = Σ_i x[..., i] · T[i, j]: T[i, j] = 1 for i ≤ j (inclusive), i < j (exclusive),
  i ≥ j (reverse), i > j (reverse exclusive); then the axis is moved back. The sums are f32 dot products (their
  order differs from a sequential sum by rounding only).
- integers (stored as i32): a Hillis-Steele scan that stays exact: for d = 1, 2, 4, … < L, y += y shifted by d
  along the axis (a Pad with d zeros on one side and −d on the other, so the shape is kept); ``exclusive`` is one
  more shift by 1. ⌈log2 L⌉ Pad + Eltwise sum pairs, any rank 1-6, no transpose.

``axis`` (input 1, a rank-0 or one-element int32/int64 tensor) must be a constant at import (a graph input makes
the import dynamic: it is bound when the model runs). Raises ShapeError naming the node for an axis out of range
or not a single value; UnsupportedError for another data type (bool, u8).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ShapeError, UnsupportedError
from ...layout import DataType
from ...primitives.data import Data
from ...primitives.eltwise import Eltwise, EltwiseMode
from ...primitives.gemm import Gemm
from ...primitives.pad import Pad
from . import converter
from .movement import permute_to


def triangle(n: int, exclusive: bool, reverse: bool) -> np.ndarray:
    """The (n, n) f32 matrix T with x @ T = the cumulative sums of x along its last axis."""
    i, j = np.indices((n, n))
    keep = (i >= j if not exclusive else i > j) if reverse else (i <= j if not exclusive else i < j)
    return keep.astype(np.float32)


@converter("CumSum", versions=(11, 14))
def cumsum(ctx: Any, node: Any) -> None:
    """CumSum → Gemm with a triangular matrix (float32) or a Pad/Eltwise scan (integers)."""
    a = ctx.attrs(node)
    axis_v = np.asarray(ctx.const(node.input[1])).reshape(-1)  # first: a run-time axis makes the import dynamic
    shape = ctx.shape(node.input[0])
    rank = len(shape)
    what = f"CumSum '{node.name}'"
    if axis_v.size != 1 or not -rank <= int(axis_v[0]) < rank:
        raise ShapeError(f"{what}: axis: expected one value in [{-rank}, {rank - 1}], got {axis_v.tolist()}")
    axis = int(axis_v[0]) % rank
    exclusive, reverse = bool(a.get("exclusive", 0)), bool(a.get("reverse", 0))
    dtype = ctx.layout(node.input[0]).dtype
    if dtype == DataType.f32:
        _by_gemm(ctx, node, shape, axis, exclusive, reverse)
    elif dtype == DataType.i32:
        _by_scan(ctx, node, shape, axis, exclusive, reverse)
    else:
        raise UnsupportedError(f"{what}: input data type: expected float32 or an integer type, got {dtype.value}")


def _by_gemm(ctx: Any, node: Any, shape: tuple[int, ...], axis: int, exclusive: bool, reverse: bool) -> None:
    out = node.output[0]
    rank = len(shape)
    to_last = tuple(d for d in range(rank) if d != axis) + (axis,)
    src = node.input[0]
    if axis != rank - 1:
        src = ctx.fresh(out + "_axis_last")
        permute_to(ctx, src, node.input[0], to_last, node)
    t = ctx.add(Data(ctx.fresh(out + "_triangle"), triangle(shape[axis], exclusive, reverse)))
    if axis == rank - 1:
        ctx.add(Gemm(out, [ctx.ref(src), t]))
        return
    y = ctx.add(Gemm(ctx.fresh(out + "_sums"), [ctx.ref(src), t]))
    permute_to(ctx, out, y, tuple(int(v) for v in np.argsort(to_last)), node)


def _shift(ctx: Any, base: str, src: str, rank: int, axis: int, d: int, reverse: bool) -> str:
    """``src`` moved by ``d`` along ``axis`` (towards the end, or the start when ``reverse``), zeros shifted in."""
    begin, end = [0] * rank, [0] * rank
    begin[axis], end[axis] = (-d, d) if reverse else (d, -d)
    return str(ctx.add(Pad(ctx.fresh(base), src, pads_begin=tuple(begin), pads_end=tuple(end))))


def _by_scan(ctx: Any, node: Any, shape: tuple[int, ...], axis: int, exclusive: bool, reverse: bool) -> None:
    out = node.output[0]
    rank, n = len(shape), shape[axis]
    y = ctx.ref(node.input[0])
    steps = []
    d = 1
    while d < n:
        steps.append(d)
        d *= 2
    for k, d in enumerate(steps):
        last = k == len(steps) - 1 and not exclusive
        s = _shift(ctx, f"{out}_shift{d}", y, rank, axis, d, reverse)
        y = ctx.add(Eltwise(out if last else ctx.fresh(f"{out}_scan{d}"), [y, s], mode=EltwiseMode.sum))
    if exclusive:
        ctx.add(Pad(out, y, pads_begin=tuple((-1 if reverse else 1) if i == axis else 0 for i in range(rank)),
                    pads_end=tuple((1 if reverse else -1) if i == axis else 0 for i in range(rank))))
    elif not steps:  # n == 1: the sums are the input
        ctx.alias(out, node.input[0])
