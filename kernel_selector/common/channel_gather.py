"""The blocked channel gather of crop_b_fs_yx_fsv16
(``cl_kernels/channel_gather_fsv16.cl``): validation, jit and dispatch; a kernel names its source channel (a
channel shuffle through it measured slower than shuffle_channels_ref on PoCL: lanes from 16 slices per pixel)."""

from __future__ import annotations

from cldnn_py.layout import Format, Layout

from ..jitter import JitConstants
from ..params import FLOATS, SupportedKey
from .fsv16_store import fsv16_store_jit

TEMPLATE = "channel_gather_fsv16"
BLOCK = 8
"""Pixels per work-item (the row, when narrower)."""


def blocked_key() -> SupportedKey:
    """OpenCL, f32 or f16 (storage), b_fs_yx_fsv16 in and out, padding allowed (feature padding refused by
    :func:`layout_reason`)."""
    fsv16 = frozenset({Format.b_fs_yx_fsv16})
    return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS, input_formats=fsv16, output_formats=fsv16)


def layout_reason(x: Layout, out: Layout) -> str | None:
    """Why the gather cannot run these layouts (rank, feature padding), or None."""
    if x.rank != 4 or out.rank != 4:
        return f"rank {x.rank} -> {out.rank}: rank 4 only"
    for t in (x, out):
        if t.padding.lower[1] or t.padding.upper[1]:
            return "feature padding"
    return None


def gather_jit(out: Layout, src_channel: str, offsets: tuple[int, int, int, int], aligned: bool) -> JitConstants:
    """SRC_CHANNEL(f) (a C expression of f), OFFSET_B/F/Y/X, CG_ALIGNED, CG_BLOCK, CG_STORE_PIXEL (the output's
    pixel store, :mod:`.fsv16_store`)."""
    j = JitConstants().add("SRC_CHANNEL(f)", f"({src_channel})").update(fsv16_store_jit("CG_STORE_PIXEL", out.dtype))
    for d, o in zip("BFYX", offsets):
        j.add(f"OFFSET_{d}", o)
    return j.update({"CG_ALIGNED": int(aligned), "CG_BLOCK": min(BLOCK, out.dims4[3])})


def gather_dispatch(out: Layout) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(ceil(X / P), Y, ceil(C / 16)·N), (1, 1, 1)."""
    b, f, y, x = out.dims4
    return (-(-x // min(BLOCK, x)), y, -(-f // 16) * b), (1, 1, 1)
