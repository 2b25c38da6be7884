"""TopK → two TopK primitives (values, indices) over the same input.

K comes from the attribute (version 1) or the second input (10+), which must be known at import: a K fed at run time
is a value input of a dynamic topology (one specialization per K). ``sorted=0`` leaves the order unspecified in
ONNX; the sorted order is given. K = 0 gives empty outputs. Ties: the lower index first (the ONNX definition); a NaN
after every number. Semantics: ONNX TopK (versions 1, 10, 11, 24).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ShapeError
from ...primitives.top_k import TopK
from . import converter


@converter("TopK", versions=(1, 10, 11, 24))
def top_k(ctx: Any, node: Any) -> None:
    """TopK (axis, largest, sorted; K as attribute or constant input) → TopK values and TopK indices (i32 stored,
    int64 at the boundary). Raises ShapeError for K outside [0, axis size]."""
    a = ctx.attrs(node)
    x = node.input[0]
    k = int(a["k"]) if "k" in a else int(np.asarray(ctx.const(node.input[1])).reshape(-1)[0])
    shape = ctx.shape(x)
    axis = int(a.get("axis", -1))
    if not -len(shape) <= axis < len(shape):
        raise ShapeError(f"TopK '{node.name}': axis: expected in [{-len(shape)}, {len(shape)}), got {axis}")
    n = shape[axis % len(shape)]
    if not 0 <= k <= n:
        raise ShapeError(f"TopK '{node.name}': K: expected in [0, {n}] (axis {axis} of {shape}), got {k}")
    largest = bool(a.get("largest", 1))
    outs = [(o, kind) for o, kind in zip(node.output, ("values", "indices")) if o]
    for out, kind in outs:
        if k == 0:
            oshape = tuple(0 if i == axis % len(shape) else s for i, s in enumerate(shape))
            ctx.consts[out] = np.zeros(oshape, ctx.layout(x).dtype.numpy if kind == "values" else np.int64)
            continue
        ctx.add(TopK(out, ctx.ref(x), axis=axis, k=k, largest=largest, output=kind))
