"""Typed attributes of reduce, arg_max and top_k, the reduce mode enum and the axes rule (ONNX Reduce*,
ArgMax/ArgMin, TopK)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .base import OpAttrs


class ReduceMode(str, enum.Enum):
    """How the reduced elements are combined: arithmetic mean, sum, maximum or minimum (NaN propagates), product."""

    mean = "mean"
    sum = "sum"
    max = "max"
    min = "min"
    prod = "prod"


def normalize_axes(axes: tuple[int, ...], rank: int) -> tuple[int, ...]:
    """Sorted non-negative axes for a rank-``rank`` tensor; an empty tuple means every axis.

    Raises ValueError for an axis outside ``[-rank, rank)`` or an axis named twice (ONNX Reduce* rules).
    """
    if not axes:
        return tuple(range(rank))
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"axis {a} is out of range [{-rank}, {rank})")
        out.append(a % rank)
    if len(set(out)) != len(out):
        raise ValueError(f"axes {tuple(axes)} name an axis twice")
    return tuple(sorted(out))


@dataclass(frozen=True)
class ReduceAttrs(OpAttrs):
    """``mode`` over ``axes`` (empty: all), keeping reduced axes as 1 when ``keep_dims``."""

    mode: ReduceMode = ReduceMode.sum
    axes: tuple[int, ...] = ()
    keep_dims: bool = True


@dataclass(frozen=True)
class ArgMaxAttrs(OpAttrs):
    """Index of the max (``mode="max"``) or min (``"min"``) along ``axis``; ``select_last_index`` picks the last tie."""

    axis: int = 0
    keep_dims: bool = True
    select_last_index: bool = False
    mode: str = "max"


@dataclass(frozen=True)
class TopKAttrs(OpAttrs):
    """The ``k`` largest (``largest``) or smallest elements along ``axis``, in order (ties: lower index first; NaN
    after every number); ``output`` says which result the primitive gives: ``"values"`` or ``"indices"``."""

    axis: int = -1
    k: int = 1
    largest: bool = True
    output: str = "values"
