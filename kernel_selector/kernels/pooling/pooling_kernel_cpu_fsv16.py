"""pooling_cpu_fsv16: the CPU engine's fast 2-D max / average pooling, a numba loop nest on the physical buffers
of b_fs_yx_fsv16 (16 channels innermost) or plain (bfyx, byxf ...) data.

Algorithm for b_fs_yx_fsv16: :mod:`.cpu_pooling_blocked`, each pixel's window reduced in one 16-lane register by an
LLVM IR micro-kernel, one task per band of output rows of a plane. For plain formats (oneDNN's "jit:avx pooling"
order, without the JIT): one thread task per plane (b, feature), its output rows in turn; the row's accumulators
start at -inf (max) or 0 (average); for each window tap (ky, kx) whose input row is inside the image, the output
columns whose tap column is inside too form one contiguous range [lo, hi) computed once, looped as a strided scalar
loop over x with unsigned indices, no bounds check and no branch. Pad positions are never read, so a padded input's
halo is never data. The epilogue divides (average), runs the fused chain (:mod:`..cpu_epilogue`) and writes only the
interior of the output and only the lanes below the channel count (a channel tail keeps its content).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import DataType, Format, Layout
from cldnn_py.ops import PoolingAttrs, PoolingMode

from ...common.cpu_epilogue import EMPTY, I0, NJIT, chain_arrays, chain_span, fused_reason, lane_step, operand_index
from ...common.cpu_launch import Launcher, viewer
from ...common.cpu_layout import row_map
from ...common.pooling import pooling_window
from ...cpu_kernel_base import CPU, CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register
from .cpu_pooling_blocked import blocked_scratch, column_taps, pool_rows_blocked, row_windows, task_rows

F32 = frozenset({DataType.f32})
FORMATS = frozenset({Format.b_fs_yx_fsv16, Format.bfyx, Format.byxf, Format.yxfb, Format.fyxb})
MODES = {PoolingMode.max: 0, PoolingMode.average: 1, PoolingMode.average_no_padding: 2}


@numba.njit(parallel=True, **NJIT)
def pool_rows(out: np.ndarray, mo: np.ndarray, x: np.ndarray, mi: np.ndarray, dims: np.ndarray, win: np.ndarray,
              mode: int, divs: np.ndarray, whole: bool, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray,
              res: np.ndarray, mr: np.ndarray, has_res: bool) -> None:
    """Pool a plain-format tensor (bfyx, byxf ...; b_fs_yx_fsv16 runs :func:`.cpu_pooling_blocked.pool_rows_blocked`).
    ``dims`` = (B, FS, L, F, H, W, OH, OW): batch, feature slices, lanes per slice (1 here), features, input
    and output sizes; ``win`` = (KY, KX, SY, SX, PY, PX, PEY, PEX, DY, DX); ``mi`` / ``mo`` = (offset, b, slice,
    y, x pitches); ``mode`` 0 max, 1 average, 2 average_no_padding; ``divs`` (OH, OW) float32: each output's
    divisor (:func:`average_divisors`; unused for max); ``whole``: one output per plane whose window is the whole
    contiguous plane (global pooling), reduced in one straight loop."""
    nb, nfs, nl_all, nf, h, w, oh, ow = dims[0], dims[1], dims[2], dims[3], dims[4], dims[5], dims[6], dims[7]
    ky_n, kx_n, sy, sx, py, px, dy, dx = win[0], win[1], win[2], win[3], win[4], win[5], win[8], win[9]
    scratch = np.empty((nb * nfs, ow * nl_all), np.float32)  # one row per plane task, one allocation
    # a task per (b, feature slice) plane: a task per output row cost more than its 7-14 columns of work
    for t in prange(nb * nfs):
        fs = t % nfs
        b = t // nfs
        nl = min(nl_all, nf - fs * nl_all)
        acc = scratch[t]
        acc2 = acc.reshape((ow, nl_all))
        ibase = mi[0] + b * mi[1] + fs * mi[2]
        for oy in range(oh):
            acc[:] = -np.inf if mode == 0 else 0.0
            y0 = oy * sy - py
            if whole:  # a window over the whole contiguous plane (global pooling): one straight reduction
                plane = x[ibase:ibase + h * w]
                if mode == 0:
                    m = acc[0]
                    for i in range(h * w):
                        v = plane[i]
                        m = v if v > m else m
                    acc[0] = m
                else:
                    sm = np.float32(0.0)
                    for i in range(h * w):
                        sm += plane[i]
                    acc[0] = sm
            for ky in range(0 if whole else ky_n):  # (whole: done above)
                yy = y0 + ky * dy
                if yy < 0 or yy >= h:
                    continue
                rowi = ibase + yy * mi[3]
                for kx in range(kx_n):
                    off = kx * dx - px
                    lo = 0 if off >= 0 else (sx - 1 - off) // sx
                    hi = min(ow, (w - 1 - off) // sx + 1) if w - 1 - off >= 0 else 0
                    if hi <= lo:
                        continue
                    x_lo = lo * sx + off  # the first input column of the range
                    # unsigned flat indices (no wraparound check in the loop, no per-tap view object)
                    base = rowi + x_lo * mi[4]
                    step = sx * mi[4]
                    if mode == 0:
                        for i in range(hi - lo):
                            v = x[numba.uint64(base + i * step)]
                            o = numba.uint64(lo + i)
                            acc[o] = v if v > acc[o] else acc[o]
                    else:
                        for i in range(hi - lo):
                            acc[numba.uint64(lo + i)] += x[numba.uint64(base + i * step)]
            if mode != 0:
                dv = divs[oy]
                for ox in range(ow):
                    div = dv[ox]
                    for lane in range(nl_all):
                        acc2[ox, lane] /= div
            if codes.shape[0] > 0:
                if not has_res:
                    chain_span(acc, I0, ow * nl_all, codes, fa, fb, res, I0, I0)
                else:
                    step = lane_step(mr)
                    for ox in range(ow):
                        chain_span(acc, ox * nl_all, nl, codes, fa, fb, res,
                                   operand_index(mr, b, fs * nl_all, oy, ox), step)
            obase = mo[0] + b * mo[1] + fs * mo[2] + oy * mo[3]
            if nl == nl_all and mo[4] == nl_all:  # a full slice or a dense plain row: one view, one copy loop
                orow = out[obase:obase + ow * nl_all]
                for i in range(ow * nl_all):
                    orow[i] = acc[i]
            elif nl == nl_all:  # plain format with an x pitch (byxf ...): one strided view
                orow = out[obase:obase + (ow - 1) * mo[4] + 1:mo[4]]
                for i in range(ow):
                    orow[i] = acc[i]
            else:
                for ox in range(ow):
                    for lane in range(nl):
                        out[obase + ox * mo[4] + lane] = acc2[ox, lane]


def average_divisors(mode: int, oh: int, ow: int, h: int, w: int, win: np.ndarray) -> np.ndarray:
    """float32 (OH, OW): the divisor of each output of an average pooling: mode 1 (average) the taps inside
    [-pad, size + pad_end), mode 2 (average_no_padding) the taps inside the image; ones for max. Computed once at
    build time instead of per output row (it was a third of a 3×3 average pooling's time on 14×14 planes)."""
    ky_n, kx_n, sy, sx, py, px, pey, pex, dy, dx = (int(v) for v in win)
    if mode == 0:
        return np.ones((oh, ow), np.float32)

    def counts(o: int, k_n: int, s_: int, p: int, d: int, size: int, pe: int) -> tuple[np.ndarray, np.ndarray]:
        t = np.arange(o)[:, None] * s_ - p + np.arange(k_n)[None, :] * d
        return (t < size + pe).sum(1), ((t >= 0) & (t < size)).sum(1)

    cy, vy = counts(oh, ky_n, sy, py, dy, h, pey)
    cx, vx = counts(ow, kx_n, sx, px, dx, w, pex)
    div = np.outer(cy, cx) if mode == 1 else np.outer(vy, vx)
    return np.ascontiguousarray(div, np.float32)


ONE_PIXEL_PLAIN = True
"""Off: the kernel refuses a b_fs_yx_fsv16 -> bfyx pooling (:func:`one_pixel_plain`), so a blocked region that ends
in a global pooling stays plain (A/B measurements; read when a Program is built)."""


def one_pixel_plain(x: Layout, out: Layout) -> bool:
    """True for a b_fs_yx_fsv16 input pooled to a bfyx output of one pixel per plane whose channels lie contiguous
    (feature pitch 1: no spatial padding), e.g. a global average pooling after a network's last convolution: each
    slice's 16 lanes are stored as 16 channels in a row, so the blocked region of the convolution before it need not
    end in a reorder (passes/reorder_inputs.py)."""
    return (ONE_PIXEL_PLAIN and x.format == Format.b_fs_yx_fsv16 and out.format == Format.bfyx and out.rank == 4
            and out.shape[2] == out.shape[3] == 1 and out.pitches["f"] == 1)


@register
class PoolingKernelCpuFsv16(CpuKernelBase):
    """2-D pooling on the CPU engine with every attribute of the pooling primitive as ``pooling_ref`` has it:
    max / average (count_include_pad, divisor clipped to [-pad, size + pad_end)) / average_no_padding, kernel,
    stride, asymmetric pads, dilation, ceil mode (through the output size), global pooling (:func:`pooling_window`).

    Input (N, C, H, W) and output (N, C, OH, OW) f32 in the same format: b_fs_yx_fsv16 (16 lanes per pixel; channel
    tails computed in registers and never stored) or a plain one (bfyx, byxf, yxfb, fyxb); both padded as they like
    (the interior is written); or a b_fs_yx_fsv16 input into a bfyx output of one pixel per plane
    (:func:`one_pixel_plain`, no fused ops). Fused ops: activations and one eltwise with a broadcastable operand.
    Threads: one numba task per plane (B · ceil(C / 16) tasks for fsv16, B · C for plain formats).
    """

    name = "pooling_cpu_fsv16"
    primitive = "pooling"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """CPU, f32, b_fs_yx_fsv16 or plain formats, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=F32, output_dtypes=F32, input_formats=FORMATS,
                            output_formats=FORMATS)

    def validate(self, params: Params) -> str | None:
        """4-D input, output in the input's format (or :func:`one_pixel_plain`, no fused ops), a known mode, a fused
        chain the epilogue takes."""
        x, out = params.inputs[0], params.output
        if x.rank != 4 or out.rank != 4:
            return f"input rank {x.rank} is not 4"
        if x.format != out.format and not one_pixel_plain(x, out):
            return (f"output format {out.format.value} differs from the input's {x.format.value} (a "
                    f"{Format.b_fs_yx_fsv16.value} input may write bfyx only for one output pixel a plane, channels "
                    f"contiguous: got output {out.shape}, padding {out.padding})")
        if x.format != out.format and params.fused_ops:
            return (f"fused ops {[op.kind for op in params.fused_ops]} on a {Format.b_fs_yx_fsv16.value} -> "
                    "bfyx pooling: needs none")
        if PoolingMode(params.attrs_as(PoolingAttrs).mode) not in MODES:
            return f"mode {params.attrs_as(PoolingAttrs).mode} unknown"
        return fused_reason(params)

    def priority(self, params: Params) -> int:
        """Beats the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output, [chain operand]) on raw buffers."""
        x, out = params.inputs[0], params.output
        k, s, pb, pe = pooling_window(params)
        a = params.attrs_as(PoolingAttrs)
        d = (1, 1) if a.global_pooling else a.dilation
        win = np.array([k[0], k[1], s[0], s[1], pb[0], pb[1], pe[0], pe[1], d[0], d[1]], np.int64)
        lanes = 16 if x.format == Format.b_fs_yx_fsv16 else 1
        n, c, h, w = x.shape
        oh, ow = out.shape[2], out.shape[3]
        dims = np.array([n, -(-c // lanes), lanes, c, h, w, oh, ow], np.int64)
        mi, mo = row_map(x), row_map(out)
        if x.format != out.format:  # one_pixel_plain: a plane's 16 lanes land on 16 contiguous channels
            mo = np.array([mo[0], mo[1], 16, 0, 16], np.int64)
        launch = Launcher(out.count() * k[0] * k[1])  # taps read
        mode = MODES[PoolingMode(a.mode)]
        divs = average_divisors(mode, oh, ow, h, w, win)
        whole = (oh == ow == 1 and tuple(k) == (h, w) and pb == (0, 0) and tuple(d) == (1, 1)
                 and mi[3] == w * lanes and mi[4] == lanes)
        codes, fa, fb, mr = chain_arrays(list(params.fused_ops), out)
        res_lay = next((lay for op in params.fused_ops for lay in op.extra_inputs), None)

        view_in, view_out = viewer(x), viewer(out)
        view_res = viewer(res_lay) if res_lay is not None else None

        if lanes == 16:  # the separable row / column passes of cpu_pooling_blocked
            scratch, taps = blocked_scratch(ow, int(win[0]), int(win[1]))
            divs_flat = np.ascontiguousarray(divs.reshape(-1))
            rows = task_rows(oh, ow)
            ywin = row_windows(h, oh, int(win[0]), int(win[2]), int(win[4]), int(win[8]))
            cols = column_taps(w, ow, int(win[1]), int(win[3]), int(win[5]), int(win[9]))

            def fn_blocked(*bufs: Any) -> None:
                res = view_res(bufs[2]) if view_res is not None else EMPTY
                launch(pool_rows_blocked, view_out(bufs[1]), mo, view_in(bufs[0]), mi, dims, win, mode, divs_flat,
                       codes, fa, fb, res, mr, res_lay is not None, scratch, taps, rows, ywin, cols)

            return fn_blocked

        def fn(*bufs: Any) -> None:
            res = view_res(bufs[2]) if view_res is not None else EMPTY
            launch(pool_rows, view_out(bufs[1]), mo, view_in(bufs[0]), mi, dims, win, mode, divs, whole, codes, fa, fb,
                 res, mr, res_lay is not None)

        return fn
