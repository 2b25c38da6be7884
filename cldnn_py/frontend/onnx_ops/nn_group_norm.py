"""GroupNormalization composed of Reshape → MVN (with its scale and bias) → Reshape (ONNX operator spec).

Input X (N, C, D1, ..., Dn), float32, rank 2-6; ``num_groups`` G divides C; S = D1·...·Dn (1 for rank 2).
Each group's C/G channels are normalized together: (x − mean) / sqrt(var + epsilon) (biased variance), then
scaled and shifted:
- version 18: ``scale`` and ``bias`` have shape (G,), one value per group: view (N, G, C/G·S), MVN over axis 2
  with the (G,) scale/bias aligned at axis 1;
- version 21: ``scale`` and ``bias`` have shape (C,), one value per channel: view (N, G, C/G, S), MVN over axes
  (2, 3) with scale/bias reshaped to (G, C/G) and aligned at axis 1. ``stash_type`` (the precision of the
  statistics) is float32 here whatever its value (the MVN kernels accumulate in f32).
Then a Reshape back to the input shape. Raises ShapeError naming the node for a G that does not divide C or a
scale/bias of the wrong size, UnsupportedError for a non-float32 input.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ShapeError
from ...primitives.mvn import MVN
from . import converter
from .elementwise_common import require_f32
from .movement import reshape_to
from .nn_common import since_version


@converter("GroupNormalization", versions=(18, 21))
def group_normalization(ctx: Any, node: Any) -> None:
    """GroupNormalization (``num_groups``, ``epsilon``) → Reshape → MVN(scale, bias, scale_axis=1) → Reshape."""
    require_f32(ctx, node, node.input[0])
    shape = ctx.shape(node.input[0])
    a = ctx.attrs(node)
    what = f"GroupNormalization '{node.name}'"
    if not 2 <= len(shape) <= 6:
        raise ShapeError(f"{what}: input rank: expected 2-6 (N, C, ...), got shape {shape}")
    n, c = shape[0], shape[1]
    s = int(np.prod(shape[2:]))
    g = int(a.get("num_groups", 0))
    if g < 1 or c % g:
        raise ShapeError(f"{what}: num_groups dividing the {c} channels: got {g}")
    per_channel = since_version(ctx, node) >= 21
    want = c if per_channel else g
    out = node.output[0]
    params = []
    for name, role in zip(node.input[1:3], ("scale", "bias")):
        got = ctx.shape(name)
        if int(np.prod(got)) != want or len(got) != 1:
            raise ShapeError(f"{what}: {role} shape: expected ({want},) (one value per "
                             f"{'channel' if per_channel else 'group'}), got {got}")
        if per_channel:
            v = ctx.fresh(f"{out}_{role}_gc")
            reshape_to(ctx, v, name, (g, c // g), node)
            params.append(ctx.ref(v))
        else:
            params.append(ctx.ref(name))
    view, axes = ((n, g, c // g, s), (2, 3)) if per_channel else ((n, g, c // g * s), (2,))
    v = ctx.fresh(out + "_groups")
    reshape_to(ctx, v, node.input[0], view, node)
    norm = ctx.add(MVN(ctx.fresh(out + "_mvn"), ctx.ref(v), axes=axes, epsilon=float(a.get("epsilon", 1e-5)),
                       scale=params[0], bias=params[1], scale_axis=1))
    reshape_to(ctx, out, norm, shape, node)
