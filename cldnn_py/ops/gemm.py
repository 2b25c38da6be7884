"""Typed attributes of gemm and its shape rule (clDNN ``gemm_params``; ONNX MatMul and Gemm)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .base import OpAttrs


@dataclass(frozen=True)
class GemmAttrs(OpAttrs):
    """alpha·op(A)·op(B) + beta·C with numpy ``matmul`` batching; op is a transpose when ``transpose_a/b``."""

    transpose_a: bool = False
    transpose_b: bool = False
    alpha: float = 1.0
    beta: float = 1.0


def gemm_shapes(a: tuple[int, ...], b: tuple[int, ...], transpose_a: bool, transpose_b: bool
                ) -> tuple[tuple[int, ...], int, int, int, tuple[int, ...]]:
    """(batch shape, M, K, N, output shape) of op(A)·op(B) under numpy ``matmul`` rules.

    A rank-1 A is the row (1, K) and a rank-1 B the column (K, 1), and that dimension is dropped from the output;
    the transposes apply to operands of rank >= 2 only. Batch dimensions broadcast (numpy rules). The output
    shape of two vectors is () (a scalar). Raises ValueError when K differs or the batches do not broadcast.
    """
    a_batch: tuple[int, ...] = ()
    b_batch: tuple[int, ...] = ()
    if len(a) == 1:
        m, ka = 1, a[0]
    else:
        m, ka = (a[-1], a[-2]) if transpose_a else (a[-2], a[-1])
        a_batch = a[:-2]
    if len(b) == 1:
        kb, n = b[0], 1
    else:
        kb, n = (b[-1], b[-2]) if transpose_b else (b[-2], b[-1])
        b_batch = b[:-2]
    if ka != kb:
        raise ValueError(f"inner dimensions differ: {ka} (A {a}) vs {kb} (B {b})")
    batch = tuple(np.broadcast_shapes(a_batch, b_batch))
    out = batch + ((m,) if len(a) > 1 else ()) + ((n,) if len(b) > 1 else ())
    return batch, m, ka, n, out
