"""Typed attributes of the data-movement primitives (broadcast, concatenation, crop, gather, pad, permute, reshape,
scatter, strided_slice, tile) and the slice rule."""

from __future__ import annotations

from dataclasses import dataclass

from .base import OpAttrs


@dataclass(frozen=True)
class BroadcastAttrs(OpAttrs):
    """Broadcast the input to ``shape`` (numpy rules)."""

    shape: tuple[int, ...] = ()


@dataclass(frozen=True)
class ConcatenationAttrs(OpAttrs):
    """Concatenate the inputs along ``axis``."""

    axis: int = 1


@dataclass(frozen=True)
class CropAttrs(OpAttrs):
    """The sub-tensor of ``shape`` at ``offsets`` (per dimension)."""

    shape: tuple[int, ...] = ()
    offsets: tuple[int, ...] = ()


@dataclass(frozen=True)
class GatherAttrs(OpAttrs):
    """ONNX Gather along ``axis``; ``scalar_index`` drops the gathered axis (a rank-0 index)."""

    axis: int = 0
    scalar_index: bool = False


@dataclass(frozen=True)
class ScatterAttrs(OpAttrs):
    """Scatter updates to flat (row-major) element offsets of the data; ``reduction`` none, add, mul, max or min
    (ONNX ScatterElements / ScatterND ``reduction``)."""

    reduction: str = "none"


@dataclass(frozen=True)
class PadAttrs(OpAttrs):
    """Pad ``pads_begin``/``pads_end`` elements per dimension; ``mode`` constant (``value``), edge or reflect."""

    pads_begin: tuple[int, ...] = ()
    pads_end: tuple[int, ...] = ()
    mode: str = "constant"
    value: float = 0.0


@dataclass(frozen=True)
class PermuteAttrs(OpAttrs):
    """Output dimension i is input dimension ``order[i]`` (numpy transpose)."""

    order: tuple[int, ...] = ()


@dataclass(frozen=True)
class ReshapeAttrs(OpAttrs):
    """The same elements in row-major order under the new ``shape``."""

    shape: tuple[int, ...] = ()


@dataclass(frozen=True)
class StridedSliceAttrs(OpAttrs):
    """``x[b0:e0:s0, ...]`` per dimension (ONNX Slice, :func:`slice_ranges`)."""

    begin: tuple[int, ...] = ()
    end: tuple[int, ...] = ()
    steps: tuple[int, ...] = ()


@dataclass(frozen=True)
class TileAttrs(OpAttrs):
    """Repeat the input ``repeats[d]`` times along every dimension d (ONNX Tile)."""

    repeats: tuple[int, ...] = ()


def slice_ranges(begin: tuple[int, ...], end: tuple[int, ...], steps: tuple[int, ...],
                 shape: tuple[int, ...]) -> list[range]:
    """Per dimension, the input indices the slice reads: ``range(*slice(b, e, s).indices(n))``.

    This is Python's (numpy's) slice normalization, which is the ONNX Slice rule: negative ``begin``/``end`` count
    from the end of the dimension; then ``begin`` is clamped to [0, n] (to [0, n - 1] for a negative step) and
    ``end`` to [0, n] (to [-1, n - 1] for a negative step, -1 meaning "before index 0").
    """
    return [range(*slice(b, e, s).indices(n)) for b, e, s, n in zip(begin, end, steps, shape)]


@dataclass(frozen=True)
class ShuffleChannelsAttrs(OpAttrs):
    """Channel shuffle (ShuffleNet, Zhang et al. 2017): the C channels viewed as (group, C / group), transposed to
    (C / group, group) and flattened: output channel c reads input channel (c % group) * (C / group) + c // group."""

    group: int = 1
