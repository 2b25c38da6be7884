"""Gemm → FullyConnected (constant B, transA=0) or Gemm; MatMul → FullyConnected (constant 2-D B: OpenVINO's
ConvertMatMulToFullyConnected, with Reshapes around it for a rank > 2 A) or Gemm (numpy matmul semantics)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import UnsupportedError
from ...primitives.eltwise import Eltwise, EltwiseMode
from ...primitives.fully_connected import FullyConnected
from ...primitives.gemm import Gemm
from ...primitives.reshape import Reshape
from . import converter
from .nn_common import const_data, optional_input, where


def _gemm_as_fc(ctx: Any, node: Any, a: str, b: str, c: str | None, alpha: float, beta: float,
                trans_b: bool) -> None:
    """Y = alpha·A·op(B) + beta·C with a constant B as FullyConnected: weights alpha·op(B)ᵀ (N, K); a constant C
    that is the same for every row becomes the bias beta·C, any other C an Eltwise sum after it."""
    bm = np.asarray(ctx.const(b), dtype=np.float32)
    weights = (bm if trans_b else bm.T) * np.float32(alpha)
    n_out = weights.shape[0]
    bias = None
    if c is not None and ctx.is_const(c):
        cm = np.asarray(ctx.const(c), dtype=np.float32)
        if cm.ndim < 2 or cm.shape[-2] == 1:      # constant along the rows: a bias vector
            bias = const_data(ctx, f"{node.output[0]}_bias",
                              np.broadcast_to(cm.reshape(-1) * np.float32(beta), (n_out,)).copy())
            c = None
    w = const_data(ctx, f"{node.output[0]}_weights", np.ascontiguousarray(weights))
    fc_id = node.output[0] if c is None else ctx.fresh(node.output[0])
    ctx.add(FullyConnected(fc_id, ctx.ref(a), weights=w, bias=bias))
    if c is not None:
        ctx.add(Eltwise(node.output[0], [fc_id, ctx.ref(c)], mode=EltwiseMode.sum, coefficients=(1.0, beta)))


@converter("Gemm", versions=(7, 9, 11, 13))
def gemm(ctx: Any, node: Any) -> None:
    """Gemm: Y = alpha·op(A)·op(B) + beta·C (transA, transB; C optional from version 11, broadcast to (M, N)).
    A constant B with transA=0 maps to FullyConnected (+ Eltwise for a row-varying or computed C); otherwise the
    Gemm primitive."""
    a_, b_ = node.input[0], node.input[1]
    c = optional_input(node, 2)
    at = ctx.attrs(node)
    alpha, beta = float(at.get("alpha", 1.0)), float(at.get("beta", 1.0))
    trans_a, trans_b = bool(at.get("transA", 0)), bool(at.get("transB", 0))
    if len(ctx.shape(a_)) != 2 or len(ctx.shape(b_)) != 2:
        raise UnsupportedError(f"{where(node)}: A and B must be 2-D, got {ctx.shape(a_)} and {ctx.shape(b_)}")
    if beta == 0.0:
        c = None
    if ctx.is_const(b_) and not trans_a and not ctx.is_const(a_):
        _gemm_as_fc(ctx, node, a_, b_, c, alpha, beta, trans_b)
        return
    inputs = [ctx.ref(a_), ctx.ref(b_)] + ([ctx.ref(c)] if c else [])
    ctx.add(Gemm(node.output[0], inputs=inputs, transpose_a=trans_a, transpose_b=trans_b, alpha=alpha, beta=beta))


@converter("MatMul", versions=(1, 9, 13))
def matmul(ctx: Any, node: Any) -> None:
    """MatMul → Gemm: numpy matmul semantics (1-D operands, batch broadcasting), ranks up to 6. A constant 2-D B
    (K, N) with a computed A (.., K) of rank >= 2 is a FullyConnected with weights Bᵀ (N, K), as a constant-B
    Gemm: its kernels take any N and pack the weights at build (``fully_connected_gemv`` for up to 8 rows,
    ``fully_connected_gemm`` above), where ``gemm_tiled`` reads B in place and needs N % 8 == 0 (a CRNN's
    (80, 1, 256) × (256, 97) classifier ran ``gemm_ref``, 0.9 ms). A of rank > 2 is reshaped to (rows, K) and
    the result back to (.., N)."""
    a, b = node.input[0], node.input[1]
    if ctx.is_const(b) and not ctx.is_const(a) and np.ndim(ctx.const(b)) == 2 and len(ctx.shape(a)) >= 2:
        sa = ctx.shape(a)
        k, n = np.shape(ctx.const(b))
        if sa[-1] != k:
            raise UnsupportedError(f"{where(node)}: A {sa} and B {(k, n)}: inner dimensions differ")
        out = node.output[0]
        rows = a
        if len(sa) > 2:
            rows = ctx.add(Reshape(ctx.fresh(f"{out}_rows"), ctx.ref(a), shape=(int(np.prod(sa[:-1])), k)))
        w = const_data(ctx, f"{out}_weights", np.ascontiguousarray(np.asarray(ctx.const(b), np.float32).T))
        fc = ctx.add(FullyConnected(out if len(sa) == 2 else ctx.fresh(out), ctx.ref(rows), weights=w))
        if len(sa) > 2:
            ctx.add(Reshape(out, fc, shape=(*sa[:-1], n)))
        return
    ctx.add(Gemm(node.output[0], inputs=[ctx.ref(node.input[0]), ctx.ref(node.input[1])]))
