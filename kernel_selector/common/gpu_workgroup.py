"""Work-group shapes for the GPU-tier kernels: explicit lws within the device's limits, gws rounded up to a multiple
of lws (OpenCL 1.2 requires gws % lws == 0; the kernels guard the tail)."""

from __future__ import annotations

from ..device_caps import DeviceCaps
from .gpu_dispatch import round_up as _round_up


def round_up(n: int, m: int) -> int:
    """The least multiple of ``m`` that is >= ``n``, at least ``m`` (:func:`.gpu_dispatch.round_up` of n >= 1)."""
    return _round_up(max(n, 1), m)


def pow2_ge(n: int) -> int:
    """The least power of two >= ``n`` (1 for n <= 1)."""
    p = 1
    while p < n:
        p *= 2
    return p


def pow2_le(n: int) -> int:
    """The greatest power of two <= ``n`` (1 for n <= 1)."""
    p = 1
    while p * 2 <= n:
        p *= 2
    return p


def flat_lws(caps: DeviceCaps, want: int = 256) -> int:
    """A 1-D work-group size: ``want`` (a power of two) clipped to the device's work-group and dimension-0 limits."""
    return pow2_le(min(want, caps.max_work_group_size, caps.max_work_item_sizes[0]))


def flat_dispatch(count: int, caps: DeviceCaps, want: int = 256) -> tuple[tuple[int], tuple[int]]:
    """(gws, lws) for one work-item per element of a flattened tensor of ``count`` elements."""
    lws = flat_lws(caps, want)
    return (round_up(count, lws),), (lws,)


def xy_dispatch(sx: int, sy: int, sz: int, caps: DeviceCaps,
                want: int = 256) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(gws, lws) for a 3-D grid (x fastest): lws (lx, ly, 1) with lx = the power of two covering ``sx`` up to 32,
    ly filling ``want`` work-items up to the power of two covering ``sy``; gws rounded up per dimension."""
    total = pow2_le(min(want, caps.max_work_group_size))
    lx = min(pow2_ge(sx), 32, total, pow2_le(caps.max_work_item_sizes[0]))
    ly = min(pow2_ge(sy), max(total // lx, 1), pow2_le(caps.max_work_item_sizes[1]))
    return (round_up(sx, lx), round_up(sy, ly), max(sz, 1)), (lx, ly, 1)
