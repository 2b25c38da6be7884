"""Typed attributes of the normalizations: batch_norm, lrn, mvn, softmax, scale (clDNN names)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .base import OpAttrs


class MVNResult(str, enum.Enum):
    """What MVN outputs: the normalized tensor, or the statistics (mean / 1/std) over the reduced axes."""

    normalized = "normalized"
    mean = "mean"
    inv_std_dev = "inv_std_dev"


def mvn_scale_offset(scale_axis: int | None, x_rank: int, s_rank: int) -> int:
    """The input axis aligned with dimension 0 of a scale/bias of rank ``s_rank``."""
    return x_rank - s_rank if scale_axis is None else scale_axis % x_rank


@dataclass(frozen=True)
class BatchNormAttrs(OpAttrs):
    """y = (x - mean) / sqrt(var + epsilon) * scale + shift per channel; which optional inputs are present."""

    epsilon: float = 1e-5
    has_scale: bool = False
    has_shift: bool = False


@dataclass(frozen=True)
class LRNAttrs(OpAttrs):
    """Across-channel LRN (ONNX): x / (k + alpha/size · Σ x²)^beta over ``size`` channels."""

    size: int = 5
    alpha: float = 1e-4
    beta: float = 0.75
    k: float = 1.0


@dataclass(frozen=True)
class MVNAttrs(OpAttrs):
    """Mean-variance normalization over ``axes``; ``result`` is a :class:`MVNResult` value (a str); optional scale
    and bias inputs aligned by ``scale_axis`` (:func:`mvn_scale_offset`)."""

    axes: tuple[int, ...] = ()
    epsilon: float = 1e-5
    normalize_variance: bool = True
    scale_axis: int | None = None
    result: str = MVNResult.normalized.value
    has_scale: bool = False
    has_bias: bool = False


@dataclass(frozen=True)
class SoftmaxAttrs(OpAttrs):
    """Softmax (or log-softmax) along ``axis``; ``coerce_2d`` first flattens to (prod(shape[:axis]), rest)
    (ONNX < 13)."""

    axis: int = 1
    log: bool = False
    coerce_2d: bool = False


@dataclass(frozen=True)
class ScaleAttrs(OpAttrs):
    """y = x * scale (+ bias): whether the bias input is present."""

    has_bias: bool = False
