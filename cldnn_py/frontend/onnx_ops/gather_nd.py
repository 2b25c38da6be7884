"""GatherElements and GatherND → one Gather over the flattened data, with the flat offsets computed by Eltwise ops.

Both pick single elements (GatherElements) or slices (GatherND) by index tensors. Each becomes a ``Gather`` along
axis 0 of the data reshaped so that the indexed dimensions are one (``(N,)`` for GatherElements, ``(P, rest...)``
for GatherND), with row-major flat offsets computed in int32: every index component is first brought into
``[0, n)`` by an Eltwise ``mod`` with its dimension's size (ONNX's negative indices count from the end; an index
outside ``[-n, n)`` is undefined in ONNX and lands somewhere inside the tensor here), scaled by its stride and
summed with a constant holding each position's own part of the offset. Constant indices are turned into offsets at
import (checked against the range). The same decomposition as OpenVINO's reference GatherND/GatherElements: the
data is read exactly once per output element. Semantics: ONNX GatherElements (11, 13) and GatherND (11, 12, 13).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ShapeError, UnsupportedError
from ...primitives.crop import Crop
from ...primitives.data import Data
from ...primitives.eltwise import Eltwise, EltwiseMode
from ...primitives.gather import Gather
from ...primitives.reshape import Reshape
from . import converter


def const_i32(ctx: Any, base: str, arr: np.ndarray) -> str:
    """A new i32 Data holding ``arr`` (a rank-0 array as shape (1,)); returns its id."""
    return str(ctx.add(Data(ctx.fresh(base), np.ascontiguousarray(arr, dtype=np.int32).reshape(arr.shape or (1,)))))


def checked_indices(node: Any, idx: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Constant indices brought into [0, n); raises ShapeError for one outside [-n, n)."""
    if ((idx < -sizes) | (idx >= sizes)).any():
        raise ShapeError(f"{node.op_type} '{node.name}': indices: expected in [-n, n) of the indexed dimensions "
                         f"{sizes.reshape(-1).tolist()}, got {idx.reshape(-1)[:8].tolist()}")
    return np.where(idx < 0, idx + sizes, idx)


def _flat_data(ctx: Any, node: Any, shape: tuple[int, ...]) -> str:
    return str(ctx.add(Reshape(ctx.fresh(node.output[0] + "_flat"), ctx.ref(node.input[0]), shape=shape)))


def wrapped_indices(ctx: Any, node: Any, idx: str, sizes: np.ndarray) -> str:
    """Run-time indices (i32) brought into [0, n) by an Eltwise mod with the sizes (broadcast)."""
    n = const_i32(ctx, node.output[0] + "_n", sizes)
    return str(ctx.add(Eltwise(ctx.fresh(node.output[0] + "_wrap"), [idx, n], mode=EltwiseMode.mod)))


def elements_offsets(ctx: Any, node: Any, shape: tuple[int, ...], idx_name: str, ax: int) -> str:
    """Flat offsets into data of ``shape`` for ONNX ``*Elements`` indices along ``ax``: each position p of the
    indices reads / writes data[p with p[ax] = index]; an i32 tensor of the indices' shape."""
    ishape = ctx.shape(idx_name)
    r = len(shape)
    if len(ishape) != r or any(i > d for a, (i, d) in enumerate(zip(ishape, shape)) if a != ax):
        raise ShapeError(f"{node.op_type} '{node.name}': indices shape {ishape}: expected rank {r} and sizes "
                         f"within the data's {shape} outside axis {ax}")
    strides = np.array([int(np.prod(shape[d + 1:])) for d in range(r)], np.int64)
    grid = np.indices(ishape, dtype=np.int64)
    base = sum(grid[d] * strides[d] for d in range(r) if d != ax) + np.zeros(ishape, np.int64)
    if ctx.is_const(idx_name):
        idx = checked_indices(node, np.asarray(ctx.const(idx_name)).astype(np.int64), np.array(shape[ax]))
        return const_i32(ctx, node.output[0] + "_idx", base + idx * strides[ax])
    w = wrapped_indices(ctx, node, ctx.ref(idx_name), np.array([shape[ax]]))
    s = const_i32(ctx, node.output[0] + "_stride", np.array([strides[ax]]))
    scaled = ctx.add(Eltwise(ctx.fresh(node.output[0] + "_scaled"), [w, s], mode=EltwiseMode.prod))
    b = const_i32(ctx, node.output[0] + "_base", base)
    return str(ctx.add(Eltwise(ctx.fresh(node.output[0] + "_idx"), [scaled, b], mode=EltwiseMode.sum)))


def nd_offsets(ctx: Any, node: Any, shape: tuple[int, ...], idx_name: str,
               b: int) -> tuple[str, tuple[int, ...], tuple[int, ...], np.ndarray | None]:
    """Row offsets into data of ``shape`` viewed as (prod(shape[:b + m]), rest...) for ONNX ``*ND`` indices of
    shape (..., m) with ``b`` batch dimensions: (id of an i32 tensor of shape lead = indices.shape[:-1], or (1,)
    when lead is empty; lead; rest = shape[b + m:]; the offsets' values when the indices are constant, else None).
    Raises ShapeError for inconsistent shapes, constant indices out of range."""
    ishape = ctx.shape(idx_name)
    m = ishape[-1] if ishape else 0
    if not ishape or b >= min(len(shape), len(ishape)) or b + m > len(shape) or ishape[:b] != shape[:b] or m < 1:
        raise ShapeError(f"{node.op_type} '{node.name}': data {shape}, indices {ishape}, batch_dims {b}: expected "
                         f"the first batch_dims dimensions equal and 1 <= indices.shape[-1] <= rank - batch_dims")
    lead, rest = tuple(ishape[:-1]), tuple(shape[b + m:])
    sizes = np.array(shape[b:b + m], np.int64)
    strides = np.array([int(np.prod(shape[b + j + 1:b + m])) for j in range(m)], np.int64)
    per_batch = int(np.prod(sizes))
    grid = np.indices(lead, dtype=np.int64) if lead else np.zeros((0,), np.int64)
    bases = np.zeros(lead, np.int64)
    for d in range(b):                          # the batch part of each position's offset
        bases = bases + grid[d] * int(np.prod(shape[d + 1:b])) * per_batch
    if ctx.is_const(idx_name):
        idx = checked_indices(node, np.asarray(ctx.const(idx_name)).astype(np.int64), sizes)
        flat_v = (bases + (idx * strides).sum(axis=-1)).reshape(lead or (1,))
        return const_i32(ctx, node.output[0] + "_idx", flat_v), lead, rest, flat_v
    w = wrapped_indices(ctx, node, ctx.ref(idx_name), sizes)
    parts = []
    for j in range(m):
        c = ctx.add(Crop(ctx.fresh(node.output[0] + f"_i{j}"), w, shape=lead + (1,), offsets=(0,) * len(lead) + (j,)))
        s = const_i32(ctx, node.output[0] + f"_s{j}", np.array([strides[j]]))
        parts.append(ctx.add(Eltwise(ctx.fresh(node.output[0] + f"_p{j}"), [c, s], mode=EltwiseMode.prod)))
    parts.append(const_i32(ctx, node.output[0] + "_base", bases.reshape(lead + (1,))))
    total = ctx.add(Eltwise(ctx.fresh(node.output[0] + "_sum"), parts, mode=EltwiseMode.sum))
    return str(ctx.add(Reshape(ctx.fresh(node.output[0] + "_idx"), total, shape=lead or (1,)))), lead, rest, None


@converter("GatherElements", versions=(11, 13))
def gather_elements(ctx: Any, node: Any) -> None:
    """GatherElements(data, indices, axis): out[p] = data[p with p[axis] = indices[p]]; output of the indices'
    shape, the data's type. Raises ShapeError for mismatched ranks or sizes, or constant indices out of range."""
    shape = ctx.shape(node.input[0])
    r = len(shape)
    ax = int(ctx.attrs(node).get("axis", 0))
    if not -r <= ax < r:
        raise ShapeError(f"GatherElements '{node.name}': axis: expected in [{-r}, {r}), got {ax}")
    flat = elements_offsets(ctx, node, shape, node.input[1], ax % r)
    ctx.add(Gather(node.output[0], _flat_data(ctx, node, (int(np.prod(shape)),)), flat, axis=0))


@converter("GatherND", versions=(11, 12, 13))
def gather_nd(ctx: Any, node: Any) -> None:
    """GatherND(data, indices, batch_dims=b): indices of shape (..., m) pick slices data[batch, i_0..i_{m-1}, :];
    output ``indices.shape[:-1] + data.shape[b + m:]``, the data's type. Raises ShapeError for inconsistent shapes
    or constant indices out of range; UnsupportedError past rank 6."""
    shape = ctx.shape(node.input[0])
    b = int(ctx.attrs(node).get("batch_dims", 0))
    flat, lead, rest, _ = nd_offsets(ctx, node, shape, node.input[1], b)
    if len(lead) + len(rest) > 6:
        raise UnsupportedError(f"GatherND '{node.name}': output rank {len(lead) + len(rest)} > 6")
    data = _flat_data(ctx, node, (int(np.prod(shape)) // max(1, int(np.prod(rest))),) + rest)
    ctx.add(Gather(node.output[0], data, flat, axis=0, scalar_index=not lead))
