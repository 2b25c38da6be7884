"""Work-group tiling shared by the GPU-tier matrix kernels (``gemm_gpu_tiled``, ``fully_connected_gpu_tiled``,
``fully_connected_gpu_gemv``): the tile variants, their default from the device caps, and the caps checks
(local memory, work-group size).

The tiled scheme is CLBlast's Xgemm (Cedric Nugteren): a work-group of TX x TY work-items computes an
MWG x NWG tile of C (MWG = TY · WPT rows, NWG = TX · WPT columns); per K step of KWG it loads KWG x MWG of A and
KWG x NWG of B cooperatively into ``__local`` memory, and each work-item accumulates a WPT x WPT register block,
its rows and columns strided by TY and TX so that neighbouring work-items read neighbouring local words.
"""

from __future__ import annotations

from ..device_caps import DeviceCaps
from ..jitter import JitConstants
from .gpu_dispatch import wg_validate

FLOAT_BYTES = 4
BIG_TILE = {"tx": 16, "ty": 16, "wpt": 4, "kwg": 16}  # 64 x 64 tile, 256 work-items, 8 KiB of local memory
SMALL_TILE = {"tx": 8, "ty": 8, "wpt": 4, "kwg": 16}  # 32 x 32 tile, 64 work-items, 4 KiB of local memory
TILE_VARIANTS = (BIG_TILE, SMALL_TILE, {"tx": 16, "ty": 16, "wpt": 2, "kwg": 16},
                 {"tx": 8, "ty": 8, "wpt": 2, "kwg": 8})


def tile_local_bytes(v: dict[str, int]) -> int:
    """Bytes of ``__local`` memory a tile variant uses: KWG x (MWG + NWG) floats."""
    return FLOAT_BYTES * v["kwg"] * (v["ty"] * v["wpt"] + v["tx"] * v["wpt"])


def caps_reason(caps: DeviceCaps, lws: tuple[int, ...], local_bytes: int) -> str | None:
    """Why a work-group of ``lws`` using ``local_bytes`` of local memory does not fit ``caps``, or None. Local
    memory is limited to half of the device's (room for the driver and for occupancy)."""
    why = wg_validate(lws, caps)
    if why:
        return why
    if local_bytes > caps.local_mem_bytes // 2:
        return f"needs {local_bytes} bytes of local memory, more than half of the device's {caps.local_mem_bytes}"
    return None


def tile_fits(caps: DeviceCaps, v: dict[str, int]) -> str | None:
    """:func:`caps_reason` of a tile variant."""
    return caps_reason(caps, (v["tx"], v["ty"]), tile_local_bytes(v))


def default_tile(caps: DeviceCaps) -> dict[str, int]:
    """16 x 16 work-items with 4 x 4 per item when local memory >= 32 KiB and the work-group fits, else 8 x 8."""
    if caps.local_mem_bytes >= 32 * 1024 and tile_fits(caps, BIG_TILE) is None:
        return dict(BIG_TILE)
    return dict(SMALL_TILE)


def tile_variants(caps: DeviceCaps) -> list[dict[str, int]]:
    """The default tile first, then every other variant that fits ``caps``."""
    first = default_tile(caps)
    return [first] + [dict(v) for v in TILE_VARIANTS if v != first and tile_fits(caps, v) is None]


def tile_jit(v: dict[str, int]) -> JitConstants:
    """The template's constants: TX, TY, WPT, KWG, MWG, NWG."""
    return JitConstants({"TX": v["tx"], "TY": v["ty"], "WPT": v["wpt"], "KWG": v["kwg"],
            "MWG": v["ty"] * v["wpt"], "NWG": v["tx"] * v["wpt"]})


def tile_dispatch(v: dict[str, int], m: int, n: int, batch: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """gws (ceil(N / NWG) · TX, ceil(M / MWG) · TY, batch), lws (TX, TY, 1)."""
    nwg, mwg = v["tx"] * v["wpt"], v["ty"] * v["wpt"]
    return (-(-n // nwg) * v["tx"], -(-m // mwg) * v["ty"], batch), (v["tx"], v["ty"], 1)
