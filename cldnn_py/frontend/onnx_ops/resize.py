"""Resize (opsets 10-19) and Upsample (7, 9) → the Resize primitive.

Output sizes follow ONNX: from ``sizes`` (with ``keep_aspect_ratio_policy``) or ``floor(n * scale)`` from
``scales``; the scale used by the coordinate transform is the given scale, or output / input for ``sizes``.
Resize-10 and Upsample have no coordinate attribute: they are ``asymmetric`` with the "simple" nearest rounding
(floor when upsampling, ceil when downsampling), as onnxruntime implements them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import UnsupportedError
from ...layout import DataType
from ...primitives.resize import COORDINATE_MODES, NEAREST_MODES, Resize
from . import converter


def _floats(ctx: Any, node: Any, index: int) -> list[float] | None:
    """Constant input ``index`` as floats; None when absent or empty (an empty tensor means "not given")."""
    if len(node.input) > index and node.input[index]:
        v = np.asarray(ctx.const(node.input[index])).reshape(-1)
        return [float(x) for x in v] if v.size else None
    return None


def _full(values: list[float], axes: list[int], default: list[float]) -> list[float]:
    """Per-axis ``values`` given for ``axes`` spread to all dimensions (the others from ``default``)."""
    out = list(default)
    for a, v in zip(axes, values):
        out[a] = v
    return out


def add_resize(ctx: Any, node: Any, scales: list[float] | None, sizes: list[int] | None, **attrs: Any) -> None:
    """The Resize primitive for a node: output sizes from ``sizes`` or ``floor(n * scale)``, f32 input only."""
    shape = ctx.shape(node.input[0])
    if ctx.layout(node.input[0]).dtype != DataType.f32:
        raise UnsupportedError(f"{node.op_type} '{node.name}': only float tensors are supported, got "
                               f"{ctx.layout(node.input[0]).dtype.value}")
    if sizes is None:
        if scales is None or len(scales) != len(shape):
            raise UnsupportedError(f"{node.op_type} '{node.name}': needs scales or sizes for every dimension")
        sizes = [int(math.floor(n * s)) for n, s in zip(shape, scales)]
    if min(sizes) < 1:
        raise UnsupportedError(f"{node.op_type} '{node.name}': output sizes {sizes} (zero-size tensors are not "
                               f"supported)")
    ctx.add(Resize(node.output[0], ctx.ref(node.input[0]), sizes=tuple(sizes), scales=scales, **attrs))


@converter("Resize", versions=(10, 11, 13, 18, 19))
def resize(ctx: Any, node: Any) -> None:
    """Resize: modes nearest / linear / cubic, every coordinate_transformation_mode, nearest_mode, cubic_coeff_a,
    exclude_outside, extrapolation_value (tf_crop_and_resize with a constant ``roi``), and since opset 18
    ``antialias``, ``axes`` and ``keep_aspect_ratio_policy``. ``scales`` / ``sizes`` must be constants."""
    shape = ctx.shape(node.input[0])
    r = len(shape)
    a = ctx.attrs(node)
    mode = a.get("mode", "nearest")
    if ctx.opset < 11:  # Resize-10: (X, scales)
        scales = _floats(ctx, node, 1)
        add_resize(ctx, node, scales, None, mode=mode, coordinate_transformation_mode="asymmetric",
                   nearest_mode="simple")
        return
    ctm = a.get("coordinate_transformation_mode", "half_pixel")
    nearest = a.get("nearest_mode", "round_prefer_floor")
    if ctm not in COORDINATE_MODES or nearest not in NEAREST_MODES or mode not in ("nearest", "linear", "cubic"):
        raise UnsupportedError(f"Resize '{node.name}': mode {mode!r}, coordinate_transformation_mode {ctm!r}, "
                               f"nearest_mode {nearest!r} not supported")
    axes = [int(x) % r for x in a.get("axes", range(r))]
    raw_scales, raw_sizes = _floats(ctx, node, 2), _floats(ctx, node, 3)
    scales = None if raw_scales is None else _full(raw_scales, axes, [1.0] * r)
    sizes = None if raw_sizes is None else [int(v) for v in _full(raw_sizes, axes, [float(n) for n in shape])]
    policy = a.get("keep_aspect_ratio_policy", "stretch")
    if sizes is not None:
        if policy != "stretch":
            ratios = [sizes[d] / shape[d] for d in axes]
            s = min(ratios) if policy == "not_larger" else max(ratios)
            sizes = [int(s * shape[d] + 0.5) if d in axes else shape[d] for d in range(r)]
            scales = [s if d in axes else 1.0 for d in range(r)]
        else:
            scales = None
    roi = None
    if ctm == "tf_crop_and_resize":
        raw = _floats(ctx, node, 1)
        if raw is None:
            raise UnsupportedError(f"Resize '{node.name}': tf_crop_and_resize needs a constant roi")
        k = len(axes)
        roi = _full(raw[:k], axes, [0.0] * r) + _full(raw[k:], axes, [1.0] * r)
    add_resize(ctx, node, scales, sizes, mode=mode, coordinate_transformation_mode=ctm, nearest_mode=nearest,
               cubic_coeff_a=float(a.get("cubic_coeff_a", -0.75)), exclude_outside=bool(a.get("exclude_outside", 0)),
               extrapolation_value=float(a.get("extrapolation_value", 0.0)), antialias=bool(a.get("antialias", 0)),
               roi=roi)


@converter("Upsample", versions=(7, 9))
def upsample(ctx: Any, node: Any) -> None:
    """Upsample (scales attribute in opset 7, constant input in 9): nearest or (bi)linear, asymmetric."""
    a = ctx.attrs(node)
    scales = [float(s) for s in a["scales"]] if "scales" in a else _floats(ctx, node, 1)
    mode = a.get("mode", "nearest")
    if mode == "bilinear":
        mode = "linear"
    if mode not in ("nearest", "linear"):
        raise UnsupportedError(f"Upsample '{node.name}': mode {mode!r} is not supported")
    add_resize(ctx, node, scales, None, mode=mode, coordinate_transformation_mode="asymmetric",
               nearest_mode="simple")
