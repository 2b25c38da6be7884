"""convolution_cpu_depthwise: depthwise 2-D convolution on plain bfyx data, a numba row stencil (CPU engine).

Each channel is convolved with its own KH×KW filter (groups = C = OC; MobileNet, ShuffleNet, EfficientNet, the
depthwise layers of detection heads). A thread task per (batch, channel) plane; per output row the accumulators
are the output row itself, and every tap (ky, kx) adds ``w · x[iy, range]`` over the contiguous range of output
columns whose input column is inside the image (computed once per tap, as in ``pooling_cpu_fsv16``): for stride 1
a straight vector loop along x with the weight loop-invariant, no bounds check, no branch. Strides up to 4 (every
depthwise layer in practice) go further: the plane is split once into zero-bordered stride phases and each tap is
one loop over the whole plane (:func:`_plane_phases`): per-row loops over 7-56 columns cost more in loop overhead
than in arithmetic (4.5 GFLOP/s on a 72×56×56 layer). Bias and the fused chain
then run on the row while it is in L1 (:func:`~kernel_selector.common.cpu_epilogue.chain_span`).

Why bfyx and not b_fs_yx_fsv16 (oneDNN's choice): the CPU engine's GEMM convolution (``convolution_cpu_packed``)
vectorizes over pixels and is fastest on bfyx (a 1×1 reads its input in place); with depthwise layers on bfyx too,
a MobileNet-style network never leaves bfyx and needs no reorder and no blocked epilogue.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import Format
from cldnn_py.ops import ConvolutionAttrs

from ...common.cpu_epilogue import EMPTY, I0, NJIT, chain_arrays, chain_span, fused_reason, operand_index
from ...common.cpu_flat_grid import grid_geometry, grid_offsets
from ...common.cpu_launch import Launcher, viewer
from ...common.cpu_layout import row_map
from ...common.cpu_microkernel import W
from ...cpu_kernel_base import CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_2
from ...params import Params, SupportedKey
from ...selector import register
from .cpu_conv_common import PLAIN_WEIGHTS, f32_key, validate_common
from .cpu_depthwise_cl import cl_scratch_shape, depthwise_cl, use_channels_last
from .cpu_depthwise_grid import GRID_SEGMENT, depthwise_grid
from .cpu_depthwise_vec import depthwise_vec, padded_geometry, tap_offsets

BFYX = frozenset({Format.bfyx})
USE_VECTOR_ROWS = True  # strides 1 and 2 along x: cpu_depthwise_vec (tests run both forms)
GRID_FORM = "auto"  # "auto": use_grid(); "on" / "off" force it (tests and A/B runs)
TASKS = 32  # thread tasks of one call (dynamic scheduling), each a contiguous range of planes with its scratch row


@numba.njit(**NJIT)
def _plane_phases(out: np.ndarray, o0: int, mo: np.ndarray, x: np.ndarray, i0: int, mi: np.ndarray,
                  wk: np.ndarray, bv: float, h: int, wd: int, oh: int, ow: int, kh: int, kw: int, sy: int, sx: int,
                  dy: int, dx: int, py: int, px: int, ph: np.ndarray, acc: np.ndarray) -> None:  # pragma: no cover
    """One plane through zero-padded stride phases, so that every tap is one straight loop with no check.

    The input plane, with the convolution's zero border, is split into sy·sx phase planes of HQ × WQ values
    (phase (qy, qx) holds padded rows qy, qy + sy, ... and columns qx, qx + sx, ...; for stride 1 it is just the
    zero-padded plane). Tap (ky, kx) then reads one phase plane at a fixed offset for every output: output
    q = oy·WQ + ox of a grid of OH rows of WQ columns reads phase[q + (ky·dy // sy)·WQ + kx·dx // sx], one loop over
    the whole grid per tap (per-row loops over 7-56 columns cost more in loop overhead than in arithmetic: 4.5
    GFLOP/s on a 72×56×56 layer). The OW valid columns of each grid row are copied out (the WQ − OW extra columns
    per row are the price). ``ph`` (sy·sx·HQ·WQ) and ``acc`` ((OH−1)·WQ + OW) are the task's scratch: the phases
    are zeroed in one loop, then each input row is scattered into its sx phase rows (one loop each: zeroing and
    copying row by row took three loops per phase row, most of a 7×7 stride-2 layer's time), the column range of
    each phase computed once and stride 2 as a literal step (1.35-1.55× on 72 × 56² and 16 × 112² stride-2 layers,
    one thread: 455 → 328 and 299 → 194 us)."""
    hq = oh + ((kh - 1) * dy) // sy
    wq = ow + ((kw - 1) * dx) // sx
    for i in range(sy * sx * hq * wq):
        ph[i] = 0.0
    xs = mi[4]
    step = sx * xs
    for qx in range(sx):  # per column phase, its columns j with 0 <= j·sx + qx − px < W: [j_lo, j_hi), once
        off = qx - px
        j_lo = min(wq, 0 if off >= 0 else (-off + sx - 1) // sx)
        j_hi = max(j_lo, min(wq, (wd - 1 - off) // sx + 1)) if wd - 1 - off >= 0 else j_lo
        cnt = j_hi - j_lo
        if cnt <= 0:
            continue
        qy = py % sy  # the row phase and phase row of input row iy, stepped (no division per row)
        i = py // sy
        for iy in range(h):
            if i >= hq:
                break
            d0 = ((qy * sx + qx) * hq + i) * wq + j_lo
            s0 = i0 + iy * mi[3] + (j_lo * sx + off) * xs
            dst = ph[d0:d0 + cnt]
            if step == 1:
                src = x[s0:s0 + cnt]
                for j in range(cnt):
                    dst[j] = src[j]
            elif step == 2:  # a literal stride LLVM vectorizes (a runtime one gathers element by element)
                src = x[s0:s0 + 2 * cnt]
                for j in range(cnt):
                    dst[j] = src[2 * j]
            else:
                for j in range(cnt):
                    dst[j] = x[s0 + j * step]
            qy += 1
            if qy == sy:
                qy = 0
                i += 1
    n = (oh - 1) * wq + ow
    for q in range(n):
        acc[q] = bv
    for ky in range(kh):
        for kx in range(kw):
            wv = wk[ky * kw + kx]
            sh = (((ky * dy) % sy) * sx + (kx * dx) % sx) * hq * wq + ((ky * dy) // sy) * wq + (kx * dx) // sx
            src = ph[sh:sh + n]
            for q in range(n):
                acc[q] += wv * src[q]
    for oy in range(oh):
        row = out[o0 + oy * mo[3]:o0 + oy * mo[3] + (ow - 1) * mo[4] + 1]
        a = acc[oy * wq:oy * wq + ow]
        if mo[4] == 1:
            for j in range(ow):
                row[j] = a[j]
        else:
            for j in range(ow):
                row[j * mo[4]] = a[j]


@numba.njit(**NJIT)
def _depthwise_plane(out: np.ndarray, mo: np.ndarray, x: np.ndarray, mi: np.ndarray, w: np.ndarray,
                     bias: np.ndarray, has_bias: bool, geo: np.ndarray, codes: np.ndarray, fa: np.ndarray,
                     fb: np.ndarray, res: np.ndarray, mr: np.ndarray, has_res: bool, t: int, flat: bool,
                     plane_chain: bool, ph: np.ndarray, grid: np.ndarray) -> None:  # pragma: no cover - numba
    """Plane ``t`` = b · C + c of :func:`depthwise_rows`."""
    nc, h, wd, oh, ow = geo[1], geo[2], geo[3], geo[4], geo[5]
    kh, kw, sy, sx, dy, dx, py, px = geo[6], geo[7], geo[8], geo[9], geo[10], geo[11], geo[12], geo[13]
    c = t % nc
    b = t // nc
    ibase = mi[0] + b * mi[1] + c * mi[2]
    obase = mo[0] + b * mo[1] + c * mo[2]
    bv = bias[c] if has_bias else np.float32(0.0)
    if flat:
        _plane_phases(out, obase, mo, x, ibase, mi, w[c * kh * kw:(c + 1) * kh * kw], bv, h, wd, oh, ow, kh, kw,
                      sy, sx, dy, dx, py, px, ph, grid)
        if codes.shape[0] > 0 and plane_chain:
            r0 = operand_index(mr, b, c, I0, I0) if has_res else 0
            chain_span(out, obase, oh * ow, codes, fa, fb, res, r0, mr[4] if has_res else 0)
        elif codes.shape[0] > 0:
            for oy in range(oh):
                r0 = operand_index(mr, b, c, oy, I0) if has_res else 0
                chain_span(out, obase + oy * mo[3], ow, codes, fa, fb, res, r0, mr[4] if has_res else 0)
        return
    for oy in range(oh):
        o0 = obase + oy * mo[3]
        row = out[o0:o0 + ow]
        for i in range(ow):
            row[i] = bv
        for ky in range(kh):
            iy = oy * sy - py + ky * dy
            if iy < 0 or iy >= h:
                continue
            src_row = ibase + iy * mi[3]
            wk = w[(c * kh + ky) * kw:(c * kh + ky + 1) * kw]
            for kx in range(kw):
                off = kx * dx - px
                lo = 0 if off >= 0 else min(ow, (sx - 1 - off) // sx)
                hi = min(ow, (wd - 1 - off) // sx + 1) if wd - 1 - off >= 0 else 0
                if hi <= lo:
                    continue
                wv = wk[kx]
                s = src_row + lo * sx + off
                acc = row[lo:hi]
                if sx == 1:
                    seg = x[s:s + hi - lo]
                    for i in range(hi - lo):
                        acc[i] += wv * seg[i]
                else:
                    for i in range(hi - lo):
                        acc[i] += wv * x[s + i * sx]
        if codes.shape[0] > 0 and not plane_chain:
            r0 = operand_index(mr, b, c, oy, I0) if has_res else 0
            chain_span(out, o0, ow, codes, fa, fb, res, r0, mr[4] if has_res else 0)
    if codes.shape[0] > 0 and plane_chain:  # one call per plane: a call per 7-56 wide row cost more than the op
        r0 = operand_index(mr, b, c, I0, I0) if has_res else 0
        chain_span(out, obase, oh * ow, codes, fa, fb, res, r0, mr[4] if has_res else 0)


@numba.njit(parallel=True, **NJIT)
def depthwise_rows(out: np.ndarray, mo: np.ndarray, x: np.ndarray, mi: np.ndarray, w: np.ndarray, bias: np.ndarray,
                   has_bias: bool, geo: np.ndarray, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray,
                   res: np.ndarray, mr: np.ndarray, has_res: bool, scratch: np.ndarray) -> None:  # pragma: no cover
    """``geo`` = (N, C, H, W, OH, OW, KH, KW, SY, SX, DY, DX, PY, PX); ``mi`` / ``mo`` = (offset, b, f, y, x
    pitches) of the bfyx input and output (cpu_layout.row_map); weights (C, 1, KH, KW) flat; ``mr`` the chain
    operand's operand_map; ``scratch`` (G, phases + grid) float32: G tasks, each a contiguous range of planes
    with its scratch row."""
    nb, nc, oh, ow = geo[0], geo[1], geo[4], geo[5]
    kh, kw, sy, sx, dy, dx = geo[6], geo[7], geo[8], geo[9], geo[10], geo[11]
    # the output plane, and the chain operand's, are contiguous: the fused chain runs once per plane
    plane_chain = mo[3] == ow and mo[4] == 1 and (not has_res or mr[3] == ow * mr[4])
    # the phase planes and straight taps (strides up to 4); the clipped row taps below otherwise
    flat = sy <= 4 and sx <= 4
    n_ph = sy * sx * (oh + ((kh - 1) * dy) // sy) * (ow + ((kw - 1) * dx) // sx)
    groups = scratch.shape[0]
    per = -(-(nb * nc) // groups)
    for g in prange(groups):
        for t in range(g * per, min((g + 1) * per, nb * nc)):
            _depthwise_plane(out, mo, x, mi, w, bias, has_bias, geo, codes, fa, fb, res, mr, has_res, t, flat,
                             plane_chain, scratch[g, :n_ph], scratch[g, n_ph:])



def use_grid(oh: int, ow: int, sy: int, sx: int) -> bool:
    """True when a depthwise layer with an OH × OW output and strides (SY, SX) runs as one flat grid per plane
    (:mod:`.cpu_depthwise_grid`) rather than row by row: output rows of at most 2·W columns (two vectors), where
    the row form's short rows waste lanes and pay a call, a row buffer and a copy each. Same-process A/B on the
    2-core Zen 4 with AVX-512 (W = 16), isolated layers at batch 8: 272 × 14² 0.63-0.65×, 544 × 7² 0.50-0.59×,
    576 × 7² 5×5 0.72×, 136 × 28² about equal (0.81-1.02×), 112 × 56² stride 2 1.05-1.16× (rows kept)."""
    return ow <= 2 * W


@register
class ConvolutionKernelCpuDepthwise(CpuKernelBase):
    """Depthwise convolution (groups = C = OC, one filter per channel) on the CPU engine, bfyx in and out.

    Inputs: data (N, C, H, W) f32 bfyx (padding allowed, never read: borders are clipped per tap); weights
    (C, 1, KH, KW) f32 plain; bias (C,) plain. Output (N, C, OH, OW) f32 bfyx, padding allowed (interior written).
    Any stride, dilation and pads. Fused ops: activations and one eltwise with a broadcastable operand
    (:mod:`~kernel_selector.common.cpu_epilogue`). Threads: numba ``prange`` over (batch, channel) planes.
    """

    name = "convolution_cpu_depthwise"
    primitive = "convolution"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """CPU, f32, bfyx in and out, padding allowed."""
        return f32_key(BFYX)

    def validate(self, params: Params) -> str | None:
        """Depthwise (groups = C = OC, one input channel per group), plain weights, a chain the rows take."""
        g = int(params.attrs_as(ConvolutionAttrs).groups)
        c = params.inputs[0].dims4[1]
        w = params.inputs[1]
        if w.rank != 4 or not (g == c == w.shape[0] and w.shape[1] == 1):
            return f"not depthwise: groups {g}, input channels {c}, weights {w.shape}"
        return validate_common(params, PLAIN_WEIGHTS) or fused_reason(params)

    def priority(self, params: Params) -> int:
        """First for every depthwise shape on bfyx (ahead of the blocked direct kernel's 3, so the layout optimizer
        keeps depthwise layers in bfyx)."""
        return FORCE_PRIORITY_2

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(data, weights[, bias], output, [chain operand])."""
        a = params.attrs_as(ConvolutionAttrs)
        n, c, h, wd = params.inputs[0].dims4
        oh, ow = params.output.dims4[2:]
        kh, kw = params.inputs[1].shape[2:]
        geo = np.array([n, c, h, wd, oh, ow, kh, kw, a.stride[0], a.stride[1], a.dilation[0], a.dilation[1],
                        a.pad[0], a.pad[1]], np.int64)
        mi, mo = row_map(params.inputs[0]), row_map(params.output)
        n_own = len(params.inputs)
        has_bias = n_own > 2
        codes, fa, fb, mr = chain_arrays(list(params.fused_ops), params.output)
        res_lay = next((lay for op in params.fused_ops for lay in op.extra_inputs), None)
        view_x, view_w, view_o = viewer(params.inputs[0]), viewer(params.inputs[1]), viewer(params.output)
        view_b = viewer(params.inputs[2]) if has_bias else None
        view_r = viewer(res_lay) if res_lay is not None else None
        launch = Launcher(params.output.count() * kh * kw + params.inputs[0].count())  # taps + the plane copies
        sy, sx, dy, dx = int(a.stride[0]), int(a.stride[1]), int(a.dilation[0]), int(a.dilation[1])
        wq = ow + ((kw - 1) * dx) // sx
        n_ph = sy * sx * (oh + ((kh - 1) * dy) // sy) * wq
        if USE_VECTOR_ROWS and sx in (1, 2) and mo[4] == 1 and (GRID_FORM == "on" or (
                GRID_FORM == "auto" and use_grid(oh, ow, sy, sx))):  # whole planes as one flat grid
            hq, wp, gp, floats = grid_geometry(oh, ow, kh, kw, sy, sx, dy, dx, GRID_SEGMENT)
            gscratch = np.zeros((min(n * c, TASKS), floats), np.float32)  # phase borders stay zero
            goff = grid_offsets(kh, kw, sy, dy, dx, hq, wp)
            ggeo = np.array([hq, wp, gp], np.int64)

            def fn_grid(*bufs: Any) -> None:
                bias = view_b(bufs[2]) if view_b is not None else EMPTY
                res = view_r(bufs[n_own + 1]) if view_r is not None else EMPTY
                launch(depthwise_grid, view_o(bufs[n_own]), mo, view_x(bufs[0]), mi, view_w(bufs[1]), bias,
                       has_bias, geo, codes, fa, fb, res, mr, view_r is not None, gscratch, goff, ggeo)

            return fn_grid
        if USE_VECTOR_ROWS and sx in (1, 2) and mo[4] == 1:  # register accumulators, no stride phases
            hp, wp, floats = padded_geometry(oh, ow, kh, kw, sy, sx, dy, dx)
            vscratch = np.zeros((min(n * c, TASKS), floats), np.float32)  # borders stay zero: interiors written
            toff = tap_offsets(kh, kw, dy, dx, wp)

            def fn_vec(*bufs: Any) -> None:
                bias = view_b(bufs[2]) if view_b is not None else EMPTY
                res = view_r(bufs[n_own + 1]) if view_r is not None else EMPTY
                launch(depthwise_vec, view_o(bufs[n_own]), mo, view_x(bufs[0]), mi, view_w(bufs[1]), bias, has_bias,
                       geo, codes, fa, fb, res, mr, view_r is not None, vscratch, toff)

            return fn_vec
        if view_r is None and use_channels_last(c, oh, ow):  # small planes: channels-last rows
            xs_shape, acc_shape = cl_scratch_shape(n, c, oh, ow, kh, kw, sy, sx, dy, dx)
            xp = np.zeros(xs_shape, np.float32)  # borders stay zero: only interiors are written
            acc = np.empty(acc_shape, np.float32)
            wt = np.empty((kh * kw, c), np.float32)
            zeros = np.zeros(c, np.float32)

            launch_cl = Launcher(params.output.count() * kh * kw + params.inputs[0].count(), chunk=1)

            def fn_cl(*bufs: Any) -> None:
                bias = view_b(bufs[2]) if view_b is not None else zeros
                launch_cl(depthwise_cl, view_o(bufs[n_own]), mo, view_x(bufs[0]), mi, view_w(bufs[1]), bias, geo,
                          codes, fa, fb, xp, acc, wt)

            return fn_cl
        # per-task scratch kept by the kernel (CPU kernels run one at a time): phase planes, then the output grid
        scratch = np.empty((min(n * c, TASKS), n_ph + (oh - 1) * wq + ow), np.float32)

        def fn(*bufs: Any) -> None:
            bias = view_b(bufs[2]) if view_b is not None else EMPTY
            res = view_r(bufs[n_own + 1]) if view_r is not None else EMPTY
            launch(depthwise_rows, view_o(bufs[n_own]), mo, view_x(bufs[0]), mi, view_w(bufs[1]), bias, has_bias,
                   geo, codes, fa, fb, res, mr, view_r is not None, scratch)

        return fn
