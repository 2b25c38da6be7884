"""The flat-grid geometry of a sliding window over one plane (CPU engine): depthwise convolution
(``kernels/convolution/cpu_depthwise_grid.py``) and pooling (``kernels/pooling/cpu_pooling_grid.py``).

The input plane is copied into SY bordered *row phases* (phase p holds the padded rows p, p + SY, ..., each WP
columns, WP even when SX = 2), and the outputs of the plane are the grid q = oy · G + ox with G = WP / SX. Tap
(ky, kx) of output q then reads ``phase[SX · q + toff]`` with one offset per tap (:func:`grid_offsets`), for every
output of every row: consecutive grid points are consecutive outputs of a row, and the G − OW points between two
rows read border columns and are dropped. A micro-kernel call computes a segment of whole vectors of grid points
over all taps in registers, and the valid OW columns of each grid row are copied out. This is the "implicit padded
grid" of direct convolutions on flattened planes (as Winograd and FFT convolution codes compute on a padded plane and
crop), with stride 2 folded into the row phases.
"""

from __future__ import annotations

import numba
import numpy as np

from .cpu_epilogue import I0, chain_span, operand_index
from .cpu_microkernel import W
from .cpu_span_copy import copy_span
from .elementwise_numba import NJIT


def grid_geometry(oh: int, ow: int, kh: int, kw: int, sy: int, sx: int, dy: int, dx: int,
                  segment: int) -> tuple[int, int, int, int]:
    """(HQ, WP, G, floats): rows per row phase, the padded row width (even for SX = 2), the grid pitch WP / SX and
    the scratch floats of one plane (the SY phases, the slack the last call's whole-vector loads read past them,
    then the grid itself rounded up to whole calls of ``segment`` points)."""
    hp = (oh - 1) * sy + (kh - 1) * dy + 1
    hq = -(-hp // sy)
    wp = (ow - 1) * sx + (kw - 1) * dx + 1
    wp += wp % sx
    g = wp // sx
    n_grid = grid_points(oh, ow, g, segment)
    reach = sx * n_grid + W + sy * hq * wp  # the last call's loads, past the last tap's offset
    return hq, wp, g, reach + n_grid


def grid_points(oh: int, ow: int, g: int, segment: int) -> int:
    """Grid points computed per plane: (OH − 1) · G + OW rounded up to whole segments."""
    n = (oh - 1) * g + ow
    return -(-n // segment) * segment


def grid_offsets(kh: int, kw: int, sy: int, dy: int, dx: int, hq: int, wp: int) -> np.ndarray:
    """int64 (KH·KW,): tap (ky, kx)'s offset into the row phases: phase (ky·DY) mod SY, row (ky·DY) div SY, column
    kx·DX."""
    return np.array([((ky * dy) % sy) * hq * wp + ((ky * dy) // sy) * wp + kx * dx
                     for ky in range(kh) for kx in range(kw)], np.int64)


@numba.njit(**NJIT)
def plane_to_phases(sp: np.ndarray, x: np.ndarray, ibase: int, mi: np.ndarray, rows_in: int, cols_in: int, py: int,
                    px: int, sy: int, hq: int, wp: int) -> None:  # pragma: no cover - numba
    """Input rows 0 ≤ iy < ``rows_in`` (columns < ``cols_in``) of the plane at ``x[ibase]`` (row map ``mi``) into the
    row phases at the start of ``sp``: row iy is padded row iy + PY, phase (iy + PY) mod SY, row (iy + PY) div SY,
    from column PX. The borders are the caller's (never written)."""
    for iy in range(rows_in):
        r = iy + py
        d0 = ((r % sy) * hq + r // sy) * wp + px
        s0 = ibase + iy * mi[3]
        if mi[4] == 1:
            copy_span(sp, d0, x, s0, cols_in)
        else:
            row = sp[d0:d0 + cols_in]
            for i in range(cols_in):
                row[i] = x[s0 + i * mi[4]]


@numba.njit(**NJIT)
def grid_to_plane(out: np.ndarray, obase: int, mo: np.ndarray, sp: np.ndarray, g0: int, gp: int, oh: int, ow: int,
                  codes: np.ndarray, fa: np.ndarray, fb: np.ndarray, res: np.ndarray, mr: np.ndarray, has_res: bool,
                  plane_chain: bool, b: int, c: int) -> None:  # pragma: no cover - numba
    """The OW valid columns of the OH grid rows (``sp[g0 + oy · G ...]``) into output plane (b, c) at ``out[obase]``
    (row map ``mo``, x pitch 1), then the fused chain ``codes`` (:func:`~.cpu_epilogue.chain_span`): once over the
    plane when ``plane_chain`` (the plane and the chain operand's contiguous), else row by row."""
    for oy in range(oh):
        copy_span(out, obase + oy * mo[3], sp, g0 + oy * gp, ow)
        if codes.shape[0] > 0 and not plane_chain:
            r0 = operand_index(mr, b, c, oy, I0) if has_res else 0
            chain_span(out, obase + oy * mo[3], ow, codes, fa, fb, res, r0, mr[4] if has_res else 0)
    if codes.shape[0] > 0 and plane_chain:  # one call per plane
        r0 = operand_index(mr, b, c, I0, I0) if has_res else 0
        chain_span(out, obase, oh * ow, codes, fa, fb, res, r0, mr[4] if has_res else 0)
