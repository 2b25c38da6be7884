"""The per-axis index gather of the CPU engine's pad, tile and broadcast kernels (numba, :class:`AxisGather`).

Pad, tile and broadcast all read, for output coordinate (o_0, ..., o_{r-1}), the input element at per-axis source
indices ``(src_0[o_0], ..., src_{r-1}[o_{r-1}])`` (pad: ``o - pads_begin`` mapped back by the mode; tile:
``o mod n``; broadcast: ``o`` or 0), or, for a constant pad, a value where any index falls outside the input.
Composed with the input's per-axis offsets (:mod:`.cpu_strides`) the map is additively separable, like a
crop box: the trailing axes become one output *row* described once as a list of segments (runs that are one stride
in both tensors, or fills), the leading axes a table of row starts built once at ``make_fn`` time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import Format, Layout

from ..cpu_kernel_base import CPU
from ..kernel_base import COPY_TYPES
from ..params import Params, SupportedKey
from .cpu_launch import Launcher
from .cpu_layout import layout_offset
from .cpu_row_copy import BITS, CHUNK
from .cpu_strides import axis_offsets, inner_run, offset_table
from .elementwise_numba import NJIT

FORMATS = frozenset({Format.bfyx, Format.byxf, Format.yxfb, Format.fyxb, Format.b_fs_yx_fsv16})
"""The formats the gather kernels take (in and out, may differ): every one :func:`axis_offsets` describes."""


@numba.njit(**NJIT)
def _segments(orow: np.ndarray, xrow: np.ndarray, ok: np.ndarray, cap: int) -> np.ndarray:  # pragma: no cover
    """Greedy split of one output row (element j at output offset ``orow[j]``, reading source offset ``xrow[j]``
    where ``ok[j]``, else a fill) into maximal runs of at most ``cap`` elements that are one stride in both: int64
    (nseg, 6) rows (output offset, source offset, length, output stride, source stride, 1 for a fill)."""
    n = orow.shape[0]
    seg = np.zeros((n, 6), np.int64)
    k = 0
    j = 0
    while j < n:
        m = 1
        so = 0
        sx = 0
        live = ok[j]
        if j + 1 < n and ok[j + 1] == live and cap > 1:
            so = orow[j + 1] - orow[j]
            sx = xrow[j + 1] - xrow[j] if live else 0
            m = 2
            while (j + m < n and m < cap and ok[j + m] == live and orow[j + m] - orow[j + m - 1] == so
                   and (not live or xrow[j + m] - xrow[j + m - 1] == sx)):
                m += 1
        seg[k, 0] = orow[j]
        seg[k, 1] = xrow[j] if live else 0
        seg[k, 2] = m
        seg[k, 3] = so
        seg[k, 4] = sx
        seg[k, 5] = 0 if live else 1
        k += 1
        j += m
    return seg[:k].copy()


@numba.njit(parallel=True, **NJIT)
def gather_rows(out: np.ndarray, otab: np.ndarray, x: np.ndarray, xtab: np.ndarray, live: np.ndarray,
                seg: np.ndarray, chunks: np.ndarray, per: int, fill: np.ndarray) -> None:  # pragma: no cover
    """For every row r (``otab[r]``: its output start, ``xtab[r]``: its source base, ``live[r]``: 0 when a leading
    index is outside the input) and segment s of the shared row description ``seg`` (:func:`_segments`):
    ``out[otab[r] + seg[s,0] + i·seg[s,3]] = x[xtab[r] + seg[s,1] + i·seg[s,4]]`` for i < seg[s,2], or ``fill[0]``
    for a fill segment or a dead row. A task is a group of ``per`` rows × one chunk of segments
    (``chunks[c]:chunks[c+1]``); the unit-stride and broadcast (source stride 0) forms are literal loops."""
    nrows = otab.shape[0]
    nch = chunks.shape[0] - 1
    v = fill[0]
    for t in prange(((nrows + per - 1) // per) * nch):
        g = t // nch
        c = t - g * nch
        for r in range(g * per, min(nrows, g * per + per)):
            o0 = otab[r]
            x0 = xtab[r]
            alive = live[r] != 0
            for s in range(chunks[c], chunks[c + 1]):
                ob = o0 + seg[s, 0]
                m = seg[s, 2]
                so = seg[s, 3]
                if seg[s, 5] != 0 or not alive:
                    if so == 1:
                        dst = out[ob:ob + m]
                        for i in range(m):
                            dst[i] = v
                    else:
                        for i in range(m):
                            out[ob + i * so] = v
                    continue
                xb = x0 + seg[s, 1]
                sx = seg[s, 4]
                if so == 1 and sx == 1:
                    dst = out[ob:ob + m]
                    src = x[xb:xb + m]
                    for i in range(m):
                        dst[i] = src[i]
                elif so == 1 and sx == 0:
                    dst = out[ob:ob + m]
                    w = x[xb]
                    for i in range(m):
                        dst[i] = w
                else:
                    for i in range(m):
                        out[ob + i * so] = x[xb + i * sx]


class AxisGather:
    """``out[o] = x[src_0[o_0], ..., src_{r-1}[o_{r-1}]]`` over the output's logical elements, or a fill value
    where any ``valid_d[o_d]`` is False: the data movement of pad_cpu_copy, tile_cpu_copy and broadcast_cpu_copy.

    ``out``: the output Layout (rank 1-6, any format :func:`axis_offsets` describes, padding allowed: only its
    logical elements are written). ``xoffs``: per output axis d, int64 offsets (elements, length ``out.shape[d]``)
    of the source element in the input buffer, already composed with the input's per-axis offsets (0 where
    invalid or where the input has no such axis); ``xbase``: the input's :func:`layout_offset`; ``xbytes``: its
    buffer bytes. ``valid``: per axis a bool array, or None (all valid). ``fill``: the fill value as a scalar of the
    output's numpy type. Values move as unsigned integers of the item size: bit-exact.

    Plan (built once): the row is the trailing axes that are one stride in both tensors and wholly valid
    (:func:`inner_run`), else the last non-unit axis (with any trailing unit axes); the row splits greedily into
    segments (copies or fills, at most ``CHUNK`` elements) shared by every row, the leading axes give a table of
    output starts, source bases and liveness. ``__call__(x_buf, out_buf)`` runs :func:`gather_rows` through a
    :class:`Launcher` (``prange`` over row groups × segment chunks of about ``CHUNK`` elements)."""

    def __init__(self, out: Layout, xoffs: Sequence[np.ndarray], xbase: int, xbytes: int,
                 valid: Sequence[np.ndarray | None] | None, fill: Any) -> None:
        shape = tuple(out.shape)
        rank = len(shape)
        oo = axis_offsets(out)
        ok = [np.ones(n, bool) if valid is None or valid[d] is None else np.asarray(valid[d], bool)
              for d, n in enumerate(shape)]
        xs = [np.where(v, np.asarray(o, np.int64), 0) for o, v in zip(xoffs, ok)]
        first = inner_run(shape, oo, [o - o[0] for o in xs])[0]
        dead = [d for d in range(rank) if not ok[d].all()]
        if dead:
            first = max(first, max(dead) + 1)
        nonunit = [d for d in range(rank) if shape[d] > 1]
        a = min(first, nonunit[-1] if nonunit else rank - 1)
        orow = offset_table(oo, range(a, rank), 0)
        xrow = offset_table(xs, range(a, rank), 0)
        okrow = np.ones(1, bool)
        for d in range(a, rank):
            okrow = (okrow[:, None] & ok[d][None, :]).reshape(-1)
        self.seg = _segments(orow, xrow, okrow, CHUNK)
        lens = self.seg[:, 2]
        bounds, acc = [0], 0  # consecutive segments grouped up to CHUNK elements
        for s, m in enumerate(lens.tolist()):
            if acc and acc + m > CHUNK:
                bounds.append(s)
                acc = 0
            acc += m
        bounds.append(len(lens))
        self.chunks = np.array(bounds, np.int64)
        self.otab = offset_table(oo, range(a), layout_offset(out))
        self.xtab = offset_table(xs, range(a), xbase)
        live = np.ones(1, bool)
        for d in range(a):
            live = (live[:, None] & ok[d][None, :]).reshape(-1)
        self.live = live.astype(np.int8)
        self.per = max(1, CHUNK // max(1, len(orow)))
        self.dt = BITS[out.dtype.size]
        self.fill = np.array([fill], dtype=out.dtype.numpy).view(self.dt)
        self.xbytes, self.obytes = xbytes, out.bytes
        self.launch = Launcher(2 * out.count())

    def __call__(self, src: Any, dst: Any) -> None:
        """Gather from the raw buffer ``src`` into the raw buffer ``dst``."""
        self.launch(gather_rows, dst[:self.obytes].view(self.dt), self.otab, src[:self.xbytes].view(self.dt),
                    self.xtab, self.live, self.seg, self.chunks, self.per, self.fill)


def composed_offsets(x: Layout, index: Sequence[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per output axis d, the input buffer offsets (int64, relative to :func:`layout_offset`) of the input indices
    ``index[d]`` (int64, one per output index) and where they lie inside the input (a bool mask; an index outside
    [0, n) gets offset 0). ``index`` is aligned right with the input's axes (numpy's broadcasting alignment): a
    leading output axis the input lacks (broadcast) must hold zeros and reads offset 0."""
    xo = axis_offsets(x)
    shift = len(index) - x.rank
    offs, valid = [], []
    for d, idx in enumerate(index):
        if d < shift:
            offs.append(np.zeros(len(idx), np.int64))
            valid.append(np.ones(len(idx), bool))
            continue
        n = x.shape[d - shift]
        inside = (idx >= 0) & (idx < n)
        offs.append(np.where(inside, xo[d - shift][np.clip(idx, 0, n - 1)], 0))
        valid.append(inside)
    return offs, valid


def same_dtype_reason(params: Params) -> str | None:
    """Why a gather kernel refuses these params beyond its key: differing data types, or fused ops."""
    x, out = params.inputs[0], params.output
    if x.dtype != out.dtype:
        return f"input {x.dtype.value} and output {out.dtype.value} data types differ"
    return "fused ops are not supported" if params.fused_ops else None


def copy_key() -> SupportedKey:
    """CPU, one of f32 / i32 / i8 / u8 in and out, :data:`FORMATS`, padding allowed."""
    return SupportedKey(engines=CPU, input_dtypes=COPY_TYPES, output_dtypes=COPY_TYPES, input_formats=FORMATS,
                        output_formats=FORMATS)
