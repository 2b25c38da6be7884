"""Checks and jit shared by the GPU-tier fully connected kernels that read plain operands
(``fully_connected_gpu_tiled``, ``fully_connected_gpu_gemv``): input (N, ...) plain unpadded bfyx flattened to
(N, K) by its own buffer order, weights (M, K) plain unpadded bfyx, bias of any shape with M elements; every
tensor f32 or f16 storage (read through its own ``NAME_LOAD`` macro). :func:`float_reason` is the weights / bias
dtype check of every OpenCL fully connected kernel (the supported key checks the data input only)."""

from __future__ import annotations

from collections.abc import Iterable

from cldnn_py.layout import Format, Layout

from ..jitter import JitConstants
from ..params import FLOATS, Params


def fc_dims(params: Params) -> tuple[int, int, int]:
    """(N, K, M): batch items, flattened input features, output features."""
    x, w = params.inputs[0], params.inputs[1]
    return x.shape[0], x.count() // x.shape[0], w.shape[0]


def float_reason(tensors: Iterable[Layout]) -> str | None:
    """Why one of ``tensors`` (weights, bias) is not f32 or f16 (the float storages the LOAD macros read), or
    None."""
    for lay in tensors:
        if lay.dtype not in FLOATS:
            return f"weights and bias must be f32 or f16, got {lay}"
    return None


def fc_plain_reason(params: Params) -> str | None:
    """Why the operands are not plain enough: input of rank 2-4 f32/f16 bfyx unpadded, weights (M, K) f32/f16
    bfyx unpadded with K matching, bias with M f32/f16 elements; or None."""
    x, w = params.inputs[0], params.inputs[1]
    if x.rank < 2 or x.rank > 4:
        return f"input rank {x.rank} is not 2-4"
    if x.format != Format.bfyx or not x.padding.is_zero or x.dtype not in FLOATS:
        return f"input must be f32 or f16 bfyx without padding, got {x}"
    if w.rank != 2:
        return f"weights rank {w.rank} is not 2"
    if w.format != Format.bfyx or not w.padding.is_zero or w.dtype not in FLOATS:
        return f"weights must be f32 or f16 bfyx without padding, got {w}"
    _, k, m = fc_dims(params)
    if w.shape[1] != k:
        return f"weights have {w.shape[1]} columns, input has K = {k}"
    if len(params.inputs) > 2 and params.inputs[2].count() != m:
        return f"bias has {params.inputs[2].count()} elements, expected {m}"
    return float_reason(params.inputs[2:])


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
