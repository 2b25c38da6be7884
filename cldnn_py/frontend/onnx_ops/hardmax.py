"""Hardmax composed of ArgMax, an Eltwise ``equal`` and a cast (ONNX operator spec: 1 at the first maximum along
the axis, 0 elsewhere).

The float32 input (any rank 1-6) is viewed as (outer, D, inner), D the normalized extent:
- version 13: D is the size of ``axis`` (default -1), outer/inner the products of the dimensions before/after it;
- versions 1 and 11: the input is coerced to 2-D at ``axis`` (default 1): outer = prod(shape[:axis]),
  D = prod(shape[axis:]), inner = 1.
Then ArgMax along axis 1 (first index on ties, kept dims: (outer, 1, inner), i32) is compared with the constant
index range (1, D, 1) (Eltwise ``equal``, broadcast: 1/0 in i32), cast to f32 and reshaped to the input shape.
Raises UnsupportedError naming the node for a non-float32 input, ShapeError for an axis out of range.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ShapeError
from ...layout import DataType, Format
from ...primitives.arg_max import ArgMax
from ...primitives.data import Data
from ...primitives.eltwise import Eltwise, EltwiseMode
from ...primitives.reorder import Reorder
from . import converter
from .elementwise_common import require_f32
from .movement import reshape_to
from .nn_common import since_version


@converter("Hardmax", versions=(1, 11, 13))
def hardmax(ctx: Any, node: Any) -> None:
    """Hardmax → Reshape (outer, D, inner) → ArgMax → Eltwise equal with 0..D-1 → Reorder to f32 → Reshape."""
    require_f32(ctx, node, node.input[0])
    legacy = since_version(ctx, node) < 13
    shape = ctx.shape(node.input[0])
    rank = len(shape)
    axis = int(ctx.attrs(node).get("axis", 1 if legacy else -1))
    hi = rank if legacy else rank - 1  # versions 1/11 allow axis = rank (a single row per element)
    if not -rank <= axis <= hi:
        raise ShapeError(f"Hardmax '{node.name}': axis for input shape {shape}: expected in [{-rank}, {hi}], "
                         f"got {axis}")
    axis = axis + rank if axis < 0 else axis
    outer = int(np.prod(shape[:axis]))
    if legacy:
        d, inner = int(np.prod(shape[axis:])), 1
    else:
        d, inner = shape[axis], int(np.prod(shape[axis + 1:]))
    out = node.output[0]
    view = ctx.fresh(out + "_3d")
    reshape_to(ctx, view, node.input[0], (outer, d, inner), node)
    idx = ctx.add(ArgMax(ctx.fresh(out + "_argmax"), ctx.ref(view), axis=1, keep_dims=True))
    rng = ctx.add(Data(ctx.fresh(out + "_range"), np.arange(d, dtype=np.int32).reshape(1, d, 1)))
    hot = ctx.add(Eltwise(ctx.fresh(out + "_onehot"), [idx, rng], mode=EltwiseMode.equal))
    as_f32 = ctx.add(Reorder(ctx.fresh(out + "_f32"), hot, format=Format.bfyx, dtype=DataType.f32))
    reshape_to(ctx, out, as_f32, shape, node)
