"""Winograd's minimal filtering F(4×4, 3×3) for 3×3 convolutions of stride 1 (Lavin & Gray, "Fast Algorithms for
Convolutional Neural Networks", CVPR 2016): the transform matrices, the weight transform, and the typed attributes
of the two transform primitives.

A 4×4 output tile of a 3×3 convolution is Y = Aᵀ [(G g Gᵀ) ⊙ (Bᵀ d B)] A, with d the 6×6 input tile that covers it
and g the 3×3 filter; summed over the input channels, the element-wise product becomes, for each of the 36 positions
(ξ, ν) of the 6×6 transformed tile, a matrix product M[ξν] = V[ξν] · U[ξν]: V (tiles × C) the transformed input
tiles, U (C × OC) the transformed filters. 36 · tiles · C · OC multiply-adds replace the direct 144 · tiles · C · OC
(16 output pixels × 9 taps per tile): 4× fewer. The interpolation points are 0, ±1, ±2 (and ∞), Lavin & Gray's
choice for F(4, 3); the transforms add about 1e-6 relative error in float32.

Two layouts of V and M. Tile-major, (36, tiles, C) and (36, tiles, OC), the 36 products a batched GEMM (the PoCL
kernels, blocked data). Channel-major, (1, 36·C, tiles, 1) and (1, 36·OC, tiles, 1), for the CPU engine on bfyx:
the 36 products are then one 1×1 convolution with 36 groups (weights :func:`winograd_weights_grouped`), which its
packed-panel GEMM runs like any convolution (OpenBLAS between numba kernels fought their threads: ResNet-50 2.5×
slower).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .base import OpAttrs

TILE = 4
"""Output pixels per tile side (m of F(m, 3))."""

ALPHA = TILE + 2
"""Input tile side (m + r − 1); the transformed tile has ALPHA² = 36 positions."""

BT = np.array([[4, 0, -5, 0, 1, 0],
               [0, -4, -4, 1, 1, 0],
               [0, 4, -4, -1, 1, 0],
               [0, -2, -1, 2, 1, 0],
               [0, 2, -1, -2, 1, 0],
               [0, 4, 0, -5, 0, 1]], dtype=np.float64)
"""Bᵀ (6×6): the input transform V = Bᵀ d B."""

G = np.array([[1 / 4, 0, 0],
              [-1 / 6, -1 / 6, -1 / 6],
              [-1 / 6, 1 / 6, -1 / 6],
              [1 / 24, 1 / 12, 1 / 6],
              [1 / 24, -1 / 12, 1 / 6],
              [0, 0, 1]], dtype=np.float64)
"""G (6×3): the filter transform U = G g Gᵀ."""

AT = np.array([[1, 1, 1, 1, 1, 0],
               [0, 1, -1, 2, -2, 0],
               [0, 1, 1, 4, 4, 0],
               [0, 1, -1, 8, -8, 1]], dtype=np.float64)
"""Aᵀ (4×6): the output transform Y = Aᵀ M A."""


def winograd_weights(w: np.ndarray) -> np.ndarray:
    """U of 3×3 filters ``w`` (OC, C, 3, 3), any float type: (36, C, OC) float32, position ξν = 6ξ + ν first, so
    that the 36 products M[ξν] = V[ξν] (tiles × C) · U[ξν] (C × OC) are one batched GEMM. Computed in float64.
    Raises ValueError for another shape."""
    if w.ndim != 4 or w.shape[2:] != (3, 3):
        raise ValueError(f"winograd_weights: expected (OC, C, 3, 3) filters, got {w.shape}")
    u = np.einsum("ik,ockl,jl->ijco", G, w.astype(np.float64), G)
    return np.ascontiguousarray(u.reshape(ALPHA * ALPHA, w.shape[1], w.shape[0]), dtype=np.float32)


def winograd_weights_grouped(w: np.ndarray) -> np.ndarray:
    """U of 3×3 filters ``w`` (OC, C, 3, 3) as the weights of a grouped 1×1 convolution: (36·OC, C, 1, 1) float32,
    group ξν holding U[ξν]ᵀ, so that the 36 products of the channel-major form are one convolution with 36 groups
    (``M[ξν·OC + o, t] = Σ_c U[ξν][c, o] · V[ξν·C + c, t]``). Raises ValueError for another shape."""
    u = winograd_weights(w)
    return np.ascontiguousarray(u.transpose(0, 2, 1).reshape(ALPHA * ALPHA * w.shape[0], w.shape[1], 1, 1))


def tiles(out_size: int) -> int:
    """Tiles along one axis for ``out_size`` output pixels (the last tile may stick out; its extra outputs are
    not written)."""
    return -(-out_size // TILE)


@dataclass(frozen=True)
class WinogradInputAttrs(OpAttrs):
    """The input transform: the (N, C, H, W) input, read from row ``-pad_y`` and column ``-pad_x`` (zeros outside),
    cut into ``tiles_y`` × ``tiles_x`` overlapping 6×6 tiles per image (stride 4), each transformed (Bᵀ d B).
    ``channel_major``: the output is (1, 36·C, N·tiles, 1) instead of (36, N·tiles, C) (module docstring)."""

    pad_y: int = 0
    pad_x: int = 0
    tiles_y: int = 1
    tiles_x: int = 1
    channel_major: bool = False


@dataclass(frozen=True)
class WinogradOutputAttrs(OpAttrs):
    """The output transform: M (36, N·tiles_y·tiles_x, OC) to the (N, OC, out_y, out_x) output (Aᵀ M A per tile,
    plus the bias when there is one). ``channel_major``: M is (1, 36·OC, N·tiles, 1) (module docstring)."""

    out_y: int = 1
    out_x: int = 1
    tiles_y: int = 1
    tiles_x: int = 1
    channel_major: bool = False
