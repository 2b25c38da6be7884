"""Checks and jit shared by the GPU-tier fully connected kernels that read plain operands
(``fully_connected_gpu_tiled``, ``fully_connected_gpu_gemv``): input (N, ...) plain unpadded bfyx flattened to
(N, K) by its own buffer order, weights (M, K) plain unpadded bfyx, bias of any shape with M elements."""

from __future__ import annotations

from cldnn_py.layout import DataType, Format

from ..jitter import JitConstants
from ..params import Params


def fc_dims(params: Params) -> tuple[int, int, int]:
    """(N, K, M): batch items, flattened input features, output features."""
    x, w = params.inputs[0], params.inputs[1]
    return x.shape[0], x.count() // x.shape[0], w.shape[0]


def fc_plain_reason(params: Params) -> str | None:
    """Why the operands are not plain enough: input of rank 2-4 f32 bfyx unpadded, weights (M, K) f32 bfyx
    unpadded with K matching, bias with M elements; or None."""
    x, w = params.inputs[0], params.inputs[1]
    if x.rank < 2 or x.rank > 4:
        return f"input rank {x.rank} is not 2-4"
    if x.format != Format.bfyx or not x.padding.is_zero or x.dtype != DataType.f32:
        return f"input must be f32 bfyx without padding, got {x}"
    if w.rank != 2:
        return f"weights rank {w.rank} is not 2"
    if w.format != Format.bfyx or not w.padding.is_zero or w.dtype != DataType.f32:
        return f"weights must be f32 bfyx without padding, got {w}"
    _, k, m = fc_dims(params)
    if w.shape[1] != k:
        return f"weights have {w.shape[1]} columns, input has K = {k}"
    if len(params.inputs) > 2 and params.inputs[2].count() != m:
        return f"bias has {params.inputs[2].count()} elements, expected {m}"
    return None


def fc_plain_jit(params: Params) -> JitConstants:
    """``FC_N``, ``FC_K``, ``FC_M``, ``BIAS_TERM`` and ``BIAS_INDEX(m)`` (the m-th logical element of the bias)."""
    n, k, m = fc_dims(params)
    has_bias = len(params.inputs) > 2
    j = JitConstants({"FC_N": n, "FC_K": k, "FC_M": m, "BIAS_TERM": int(has_bias)})
    if has_bias:
        j.add("BIAS_INDEX(m)", "INPUT2_GET_INDEX((m) / (INPUT2_FEATURE_NUM * INPUT2_SIZE_Y * INPUT2_SIZE_X), "
              "(m) / (INPUT2_SIZE_Y * INPUT2_SIZE_X) % INPUT2_FEATURE_NUM, "
              "(m) / INPUT2_SIZE_X % INPUT2_SIZE_Y, (m) % INPUT2_SIZE_X)")
    return j
