"""DepthToSpace and SpaceToDepth, composed as the ONNX operator spec defines them: Reshape to rank 6 → Transpose →
Reshape to rank 4 (no kernel of their own; the transpose is converted as ONNX Transpose is, :func:`permute_to`).

Input (N, C, H, W) of any data type; blocksize b.
- DepthToSpace → (N, C/b², H·b, W·b). ``mode`` DCR (default): view (N, b, b, C/b², H, W), perm (0, 3, 4, 1, 5, 2);
  CRD: view (N, C/b², b, b, H, W), perm (0, 1, 4, 2, 5, 3).
- SpaceToDepth → (N, C·b², H/b, W/b). View (N, C, H/b, b, W/b, b); DCR (the only order before version 28, the
  default after): perm (0, 3, 5, 1, 2, 4); CRD (version 28): perm (0, 1, 3, 5, 2, 4).
Raises ShapeError (naming the node, expected and actual) for a rank other than 4, a blocksize below 1, or a
dimension that the blocksize does not divide; UnsupportedError for an unknown mode.
"""

from __future__ import annotations

from typing import Any

from ...errors import ShapeError, UnsupportedError
from . import converter
from .movement import permute_to, reshape_to


def _check(ctx: Any, node: Any) -> tuple[tuple[int, ...], int, str]:
    """(input shape, blocksize, mode) after the checks common to both operators."""
    shape = ctx.shape(node.input[0])
    a = ctx.attrs(node)
    what = f"{node.op_type} '{node.name}'"
    if len(shape) != 4:
        raise ShapeError(f"{what}: input rank: expected 4 (N, C, H, W), got shape {shape}")
    b = int(a.get("blocksize", 0))
    if b < 1:
        raise ShapeError(f"{what}: blocksize: expected >= 1, got {b}")
    mode = str(a.get("mode", "DCR"))
    if mode not in ("DCR", "CRD"):
        raise UnsupportedError(f"{what}: mode: expected 'DCR' or 'CRD', got {mode!r}")
    return shape, b, mode


@converter("DepthToSpace", versions=(1, 11, 13, 28))
def depth_to_space(ctx: Any, node: Any) -> None:
    """DepthToSpace (``blocksize``, ``mode`` DCR/CRD) → Reshape (rank 6) → Permute → Reshape."""
    (n, c, h, w), b, mode = _check(ctx, node)
    if c % (b * b):
        raise ShapeError(f"DepthToSpace '{node.name}': channels divisible by blocksize² = {b * b}: got C = {c}")
    if mode == "DCR":
        view, perm = (n, b, b, c // (b * b), h, w), (0, 3, 4, 1, 5, 2)
    else:
        view, perm = (n, c // (b * b), b, b, h, w), (0, 1, 4, 2, 5, 3)
    _compose(ctx, node, view, perm, (n, c // (b * b), h * b, w * b))


@converter("SpaceToDepth", versions=(1, 13, 28))
def space_to_depth(ctx: Any, node: Any) -> None:
    """SpaceToDepth (``blocksize``; ``mode`` DCR/CRD since version 28) → Reshape (rank 6) → Permute → Reshape."""
    (n, c, h, w), b, mode = _check(ctx, node)
    if h % b or w % b:
        raise ShapeError(f"SpaceToDepth '{node.name}': H and W divisible by blocksize {b}: got H = {h}, W = {w}")
    perm = (0, 3, 5, 1, 2, 4) if mode == "DCR" else (0, 1, 3, 5, 2, 4)
    _compose(ctx, node, (n, c, h // b, b, w // b, b), perm, (n, c * b * b, h // b, w // b))


def _compose(ctx: Any, node: Any, view: tuple[int, ...], perm: tuple[int, ...], out_shape: tuple[int, ...]) -> None:
    """node.output[0] = reshape(transpose(reshape(input, view), perm), out_shape)."""
    out = node.output[0]
    v = ctx.fresh(out + "_view6")
    reshape_to(ctx, v, node.input[0], view, node)
    t = ctx.fresh(out + "_perm6")
    permute_to(ctx, t, v, perm, node)
    reshape_to(ctx, out, t, out_shape, node)
