"""Work-group dispatch for GPU-tier kernels: explicit lws from the device caps, gws rounded up to a multiple of it.

NVIDIA's OpenCL 1.2 requires ``gws % lws == 0`` in every dimension, so a GPU-tier kernel with one work-item per
element rounds the global size up and guards its work-items: ``if (x >= SIZE_X || y >= SIZE_Y || z >= SIZE_Z)
return;`` (:func:`wg_guard_jit` defines ``WG_OUT_OF_RANGE(x, y, z)`` for that). Work-groups hold 64-256 work-items,
x (dimension 0, the fastest-varying address) first so consecutive work-items write consecutive addresses.
"""

from __future__ import annotations

from typing import Any

from ..jitter import JitConstants

WG_TARGET = 256
"""Work-items per work-group the dispatch aims at (fewer for small shapes, never fewer than WG_MIN when it can)."""
WG_MIN = 64


def round_up(n: int, m: int) -> int:
    """``n`` rounded up to a multiple of ``m``."""
    return -(-n // m) * m


def wg_dispatch(shape: tuple[int, ...], caps: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(gws, lws) for ``shape`` (the 1-3 work-item counts per dimension, dimension 0 fastest) on a device ``caps``
    (:class:`kernel_selector.device_caps.DeviceCaps`).

    lws: dimension 0 takes min(pow2 >= shape[0], target), the next dimensions take what the target leaves (powers
    of two, each at most the next power of two of its size); the target is min(WG_TARGET, max_work_group_size) and
    every dimension respects ``max_work_item_sizes``. When the shape is so small that the group holds fewer than
    WG_MIN work-items, the dimensions with items left over (then dimension 0) are widened up to WG_MIN (idle
    work-items are cheaper than tiny groups on most GPUs; a tensor of fewer than 64 elements runs one group).
    gws: each dimension rounded up to a multiple of its lws, so the kernel must guard ``id >= shape``
    (see :func:`wg_guard_jit`).
    """
    shape = tuple(max(1, int(s)) for s in shape)
    target = max(1, min(WG_TARGET, int(caps.max_work_group_size)))
    item_max = tuple(caps.max_work_item_sizes) + (1,) * 3
    lws: list[int] = []
    left = target
    for d, n in enumerate(shape):
        cap = max(1, min(left, int(item_max[d])))
        size = 1
        while size * 2 <= cap and size < n:
            size *= 2
        lws.append(size)
        left = max(1, left // size)
    total = 1
    for s in lws:
        total *= s
    want_min = min(WG_MIN, target)
    for d in range(len(lws)):  # first the dimensions that still have work-items to cover, then dimension 0
        while total < want_min and lws[d] < shape[d] and lws[d] * 2 <= min(target, int(item_max[d])):
            lws[d] *= 2
            total *= 2
    while total < want_min and lws[0] * 2 <= min(target, int(item_max[0])):
        lws[0] *= 2
        total *= 2
    gws = tuple(round_up(n, lw) for n, lw in zip(shape, lws))
    return gws, tuple(lws)


def wg_guard_jit(sizes: tuple[str, ...] | tuple[int, ...]) -> JitConstants:
    """``WG_OUT_OF_RANGE(x, y, z)``: true for a work-item past ``sizes`` (the shape given to :func:`wg_dispatch`,
    as C expressions or ints, one to three), which the kernel returns on before touching memory."""
    conds = [f"((uint)({v}) >= (uint)({s}))" for v, s in zip(("x", "y", "z"), sizes)]
    params = ", ".join(("x", "y", "z")[:len(sizes)])
    return JitConstants().add(f"WG_OUT_OF_RANGE({params})", "(" + " || ".join(conds) + ")")


def wg_validate(lws: tuple[int, ...], caps: Any) -> str | None:
    """A reason when ``lws`` does not fit the device (product over max_work_group_size or a dimension over
    max_work_item_sizes), else None."""
    total = 1
    for s in lws:
        total *= s
    if total > caps.max_work_group_size:
        return f"work-group of {total} work-items exceeds the device's {caps.max_work_group_size}"
    for d, (s, m) in enumerate(zip(lws, caps.max_work_item_sizes)):
        if s > m:
            return f"work-group dimension {d} of {s} exceeds the device's {m}"
    return None


def wg_tensor_dispatch(layout: Any, caps: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """:func:`wg_dispatch` of one work-item per element of ``layout`` (its ``dims4`` (b, f, y, x)): shape
    (X, Y, F * B), x fastest."""
    b, f, y, x = layout.dims4
    return wg_dispatch((x, y, f * b), caps)


def wg_tensor_guard(name: str) -> JitConstants:
    """``WG_OUT_OF_RANGE(x, y, z)`` for :func:`wg_tensor_dispatch` of the jit tensor ``name`` (OUTPUT, INPUT0 ...):
    x >= NAME_SIZE_X, y >= NAME_SIZE_Y or z >= NAME_FEATURE_NUM * NAME_BATCH_NUM; and ``WG_BFYX``, the statements
    that open such a kernel: ``uint x, y, z`` from the global ids, return past the tensor, ``uint f, b`` from z."""
    j = wg_guard_jit((f"{name}_SIZE_X", f"{name}_SIZE_Y", f"{name}_FEATURE_NUM * {name}_BATCH_NUM"))
    return j.add("WG_BFYX", "const uint x = get_global_id(0); const uint y = get_global_id(1); "
                 "const uint z = get_global_id(2); if (WG_OUT_OF_RANGE(x, y, z)) return; "
                 f"const uint f = z % {name}_FEATURE_NUM; const uint b = z / {name}_FEATURE_NUM;")


def wg_tensor_validate(layout: Any, caps: Any, max_rank: int = 4) -> str | None:
    """A reason when ``layout`` has a rank above ``max_rank`` (the rank 5-6 references handle those) or the
    dispatch's work-group does not fit ``caps``, else None."""
    if layout.rank > max_rank:
        return f"rank {layout.rank} > {max_rank} (the reference kernel handles it)"
    return wg_validate(wg_tensor_dispatch(layout, caps)[1], caps)


COPY_MAP_TEMPLATE = "copy_map_gpu_wg"
"""``cl_kernels/copy_map_gpu_wg.cl``: the template the GPU-tier copies whose input coordinate is a per-dimension
expression of the output coordinate (crop, tile, broadcast) share; the kernel defines ``IN_B``, ``IN_F``, ``IN_Y``,
``IN_X`` (C expressions of ``b``, ``f``, ``y``, ``x``) and ``WG_OUT_OF_RANGE`` (:func:`copy_map_jit`)."""


def copy_map_jit(in_coords: tuple[str, str, str, str]) -> JitConstants:
    """``IN_B``, ``IN_F``, ``IN_Y``, ``IN_X`` (the input coordinate read for output (b, f, y, x)) and the guard over
    the OUTPUT, for :data:`COPY_MAP_TEMPLATE`."""
    j = wg_tensor_guard("OUTPUT")
    for name, c in zip(("B", "F", "Y", "X"), in_coords):
        j.add(f"IN_{name}", f"({c})")
    return j
