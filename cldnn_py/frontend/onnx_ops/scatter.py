"""ScatterElements and ScatterND → one Scatter primitive on flat element offsets (computed as for GatherElements /
GatherND in gather_nd.py: constant indices at import, run-time ones by Eltwise ops).

ScatterND's update slices become element offsets by adding each slice's row offset (shape ``indices.shape[:-1]``,
broadcast) to the constant offsets inside a slice (shape ``data.shape[b + m:]``). Reductions none, add, mul, max,
min (ScatterElements 16/18, ScatterND 16/18); with ``none``, repeated indices are undefined in ONNX: the last update
wins here. Semantics: ONNX ScatterElements (11, 13, 16, 18), ScatterND (11, 13, 16, 18).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ShapeError
from ...primitives.eltwise import Eltwise, EltwiseMode
from ...primitives.reshape import Reshape
from ...primitives.scatter import Scatter
from . import converter
from .gather_nd import const_i32, elements_offsets, nd_offsets


def _scatter(ctx: Any, node: Any, flat: str) -> None:
    upd = node.input[2]
    if int(np.prod(ctx.shape(upd))) != ctx.layouts[flat].count():
        raise ShapeError(f"{node.op_type} '{node.name}': updates shape {ctx.shape(upd)}: expected "
                         f"{ctx.layouts[flat].count()} elements (one per index)")
    red = str(ctx.attrs(node).get("reduction", "none"))
    ctx.add(Scatter(node.output[0], ctx.ref(node.input[0]), flat, ctx.ref(upd), reduction=red))


@converter("ScatterElements", versions=(11, 13, 16, 18))
def scatter_elements(ctx: Any, node: Any) -> None:
    """ScatterElements(data, indices, updates, axis, reduction): y = data; y[p with p[axis] = indices[p]] ∘=
    updates[p]. Raises ShapeError for bad shapes or constant indices out of range."""
    shape = ctx.shape(node.input[0])
    r = len(shape)
    ax = int(ctx.attrs(node).get("axis", 0))
    if not -r <= ax < r:
        raise ShapeError(f"ScatterElements '{node.name}': axis: expected in [{-r}, {r}), got {ax}")
    _scatter(ctx, node, elements_offsets(ctx, node, shape, node.input[1], ax % r))


@converter("ScatterND", versions=(11, 13, 16, 18))
def scatter_nd(ctx: Any, node: Any) -> None:
    """ScatterND(data, indices, updates, reduction): y = data; y[indices[j]] ∘= updates[j] for each index tuple j
    (a slice of data.shape[m:]). Raises ShapeError for bad shapes or constant indices out of range."""
    shape = ctx.shape(node.input[0])
    rows, lead, rest, row_v = nd_offsets(ctx, node, shape, node.input[1], 0)
    inner = np.arange(int(np.prod(rest)), dtype=np.int64).reshape(rest or (1,))
    if not rest:
        _scatter(ctx, node, rows)
        return
    width = int(np.prod(rest))
    if row_v is not None:
        flat = const_i32(ctx, node.output[0] + "_flat", row_v.reshape(lead + (1,) * len(rest)) * width + inner)
        _scatter(ctx, node, flat)
        return
    w = const_i32(ctx, node.output[0] + "_width", np.array([width]))
    r2 = ctx.add(Reshape(ctx.fresh(node.output[0] + "_rows"), rows, shape=(lead or (1,)) + (1,) * len(rest)))
    scaled = ctx.add(Eltwise(ctx.fresh(node.output[0] + "_scaled"), [r2, w], mode=EltwiseMode.prod))
    flat = ctx.add(Eltwise(ctx.fresh(node.output[0] + "_flat"), [scaled, const_i32(ctx, node.output[0] + "_in",
                                                                                     inner)],
                           mode=EltwiseMode.sum))
    _scatter(ctx, node, str(flat))
