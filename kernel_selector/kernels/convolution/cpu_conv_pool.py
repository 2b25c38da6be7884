"""A max or average pooling fused into the channel-vector row tiles of the convolution before it (CPU engine).

Almost every image classifier and detector backbone starts convolution → ReLU → max pooling: ResNet's and
GoogLeNet's 7×7 stride 2 to 112×112 then a 3×3 stride-2 pooling, SqueezeNet's 3×3 stride 2 to 111×111 then the
same pooling. The convolution's output is the largest tensor of the network (64 × 112 × 112 floats, 3.2 MB per
image, 25 MB at batch 8: the whole L3 of the machine) and the pooling reads it once and keeps a quarter. Here a
thread computes a band of the convolution's output rows for one tile of channels into its own scratch (a few
hundred KB, in L2), pools the band into the output and moves on: the large tensor is never written to memory.

The pass ``cldnn_py/passes/fuse_pool_into_conv.py`` appends the pooling to the convolution's fused ops (a
:class:`~kernel_selector.params.FusedOp` of kind ``pooling`` whose attributes are the
:class:`~cldnn_py.ops.PoolingAttrs`, last in the chain) where ``convolution_cpu_packed`` runs the layer as
channel-vector row tiles (:func:`.cpu_conv_oc.oc_row_tiles`) and takes the fusion (:func:`fused_pool_reason`). The
convolution's own epilogue (bias, clamps, activations) runs on the band before the pooling reads it. This is the
pooling-into-producer fusion of TVM's and XLA's CPU schedules (oneDNN keeps the two as separate primitives); the
band order is Halide's ``compute_at`` of the convolution inside the pooling's rows. Average poolings (DenseNet's
transitions) take the same bands, summed and scaled by each output's divisor.
"""

from __future__ import annotations

import dataclasses

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import Format, Layout
from cldnn_py.ops import ConvolutionAttrs, PoolingAttrs, PoolingMode
from cldnn_py.ops.window import conv_out_size

from ...common.cpu_epilogue import I0, chain_span
from ...common.elementwise_numba import NJIT
from ...params import FusedOp, Params
from ..pooling.pooling_kernel_cpu_fsv16 import MODES, average_divisors
from .cpu_conv_oc import row_step, row_task, tile_of

BAND_BYTES = 192 << 10
"""A band of convolution rows (one channel tile of them) takes at most about this much of a thread's scratch (at
least the pooling window's rows): it stays in the core's L2 while the pooling reads it."""


def fused_pool(params: Params) -> FusedOp | None:
    """The pooling fused last into a convolution (the FusedOp of kind ``pooling``), or None."""
    ops = list(params.fused_ops)
    return ops[-1] if ops and ops[-1].kind == "pooling" else None


def pool_attrs(op: FusedOp) -> PoolingAttrs:
    """The PoolingAttrs of a fused pooling; raises TypeError for another kind of attributes."""
    if not isinstance(op.attrs, PoolingAttrs):
        raise TypeError(f"fused op '{op.fused_id}': expected PoolingAttrs, got {type(op.attrs).__name__}")
    return op.attrs


def fused_pool_reason(a: PoolingAttrs) -> str | None:
    """Why the fused form cannot run pooling ``a``, or None: a max or average pooling over a 2-D window of
    dilation 1, not global (global windows stay kernels of their own)."""
    if a.global_pooling or tuple(a.dilation) != (1, 1):
        return f"fused pooling: global {a.global_pooling}, dilation {a.dilation}: needs a local window, dilation 1"
    return None


def pool_divisors(a: PoolingAttrs, oh: int, ow: int) -> np.ndarray:
    """The reciprocals of an average pooling's divisors over convolution planes of ``oh`` × ``ow``, float32 (OH' ·
    OW',) in pooled row order (:func:`window_divisors`); empty for max pooling."""
    div = window_divisors(a, oh, ow)
    return np.ascontiguousarray(1.0 / div, np.float32) if div.size else div


def window_divisors(a: PoolingAttrs, oh: int, ow: int) -> np.ndarray:
    """An average pooling's divisors over convolution planes of ``oh`` × ``ow``, float32 (OH' · OW',) in pooled row
    order (:func:`~kernel_selector.kernels.pooling.pooling_kernel_cpu_fsv16.average_divisors`: the taps inside [-pad,
    size + pad_end) for ``average``, inside the planes for ``average_no_padding``); empty for max pooling."""
    mode = MODES[PoolingMode(a.mode)]
    if mode == 0:
        return np.zeros(0, np.float32)
    poh, pow_ = a.output_hw(oh, ow)
    win = np.array([a.kernel[0], a.kernel[1], a.stride[0], a.stride[1], a.pad[0], a.pad[1], a.pad_end[0],
                    a.pad_end[1], 1, 1], np.int64)
    return np.ascontiguousarray(average_divisors(mode, poh, pow_, oh, ow, win).reshape(-1), np.float32)


def pool_window(a: PoolingAttrs) -> np.ndarray:
    """(KY, KX, SY, SX, pad top, pad left) of a local pooling window, int64."""
    return np.array([a.kernel[0], a.kernel[1], a.stride[0], a.stride[1], a.pad[0], a.pad[1]], np.int64)


def band_rows(tile_channels: int, ow: int, ky: int, sy: int, poh: int) -> int:
    """Convolution rows a band holds: BAND_BYTES of ``tile_channels`` rows of ``ow`` floats, at least the window's
    ``ky`` rows, at most the rows all ``poh`` pooled rows read."""
    fit = BAND_BYTES // max(1, 4 * tile_channels * ow)
    return max(ky, min(fit, (poh - 1) * sy + ky))


def scratch_floats(tile_channels: int, rows: int, ow: int, pow_: int, win: np.ndarray) -> int:
    """Floats of one thread's scratch: a band of ``rows`` rows of ``tile_channels`` channels, and the bordered row
    the pooling's x pass reads."""
    return tile_channels * rows * ow + (pow_ - 1) * int(win[3]) + int(win[1])


@numba.njit(**NJIT)
def _pool_band(s: np.ndarray, sb: int, s_f: int, a0: int, oh: int, ow: int, hi: int, q0: int, q1: int,
               win: np.ndarray, tb: int, pow_: int, out: np.ndarray, ob: int, o_f: int,
               o_y: int) -> None:  # pragma: no cover - numba
    """Max-pool pooled rows ``q0`` ≤ q < ``q1`` of ``hi`` channels from a band of convolution rows: channel j, row oy
    (``a0`` ≤ oy) at ``s[sb + j * s_f + (oy - a0) * ow]``; pooled (j, q, ox) to ``out[ob + j * o_f + q * o_y + ox]``.
    Per pooled row: the window's rows reduced into a bordered row at ``s[tb]`` (−inf outside the planes), then the
    x taps at stride SX. NaN inputs are skipped (``v > m``), as pooling_cpu_planes does."""
    ky, kx, sy, sx, pt, pl = win[0], win[1], win[2], win[3], win[4], win[5]
    wpad = (pow_ - 1) * sx + kx
    n = min(ow, wpad - pl)
    t = s[tb:tb + wpad]
    tv = s[tb + pl:tb + pl + n]
    ninf = np.float32(-np.inf)
    for i in range(pl):  # the bordered row's pads (a window's taps past the planes) stay -inf
        t[i] = ninf
    for i in range(pl + n, wpad):
        t[i] = ninf
    for j in range(hi):
        for q in range(q0, q1):
            r_lo, r_hi = max(0, q * sy - pt), min(oh, q * sy - pt + ky)
            src = sb + j * s_f + (r_lo - a0) * ow
            if r_hi - r_lo == 3:  # the common 3-row window in one pass
                v0, v1, v2 = s[src:src + n], s[src + ow:src + ow + n], s[src + 2 * ow:src + 2 * ow + n]
                for i in range(n):
                    m, e = v0[i], v1[i]
                    m = e if e > m else m
                    e = v2[i]
                    tv[i] = e if e > m else m
            else:
                for i in range(n):
                    tv[i] = ninf
                for r in range(r_lo, r_hi):
                    v = s[src + (r - r_lo) * ow:src + (r - r_lo) * ow + n]
                    for i in range(n):
                        e, m = v[i], tv[i]
                        tv[i] = e if e > m else m
            o = out[ob + j * o_f + q * o_y:ob + j * o_f + q * o_y + pow_]
            if kx == 3 and sx == 2:
                for i in range(pow_):
                    m, e = t[2 * i], t[2 * i + 1]
                    m = e if e > m else m
                    e = t[2 * i + 2]
                    o[i] = e if e > m else m
            elif kx == 2 and sx == 2:
                for i in range(pow_):
                    m, e = t[2 * i], t[2 * i + 1]
                    o[i] = e if e > m else m
            else:
                for i in range(pow_):
                    m = t[i * sx]
                    for d in range(1, kx):
                        e = t[i * sx + d]
                        m = e if e > m else m
                    o[i] = m


@numba.njit(**NJIT)
def _avg_band(s: np.ndarray, sb: int, s_f: int, a0: int, oh: int, ow: int, hi: int, q0: int, q1: int,
              win: np.ndarray, tb: int, pow_: int, out: np.ndarray, ob: int, o_f: int, o_y: int,
              rdiv: np.ndarray) -> None:  # pragma: no cover - numba
    """:func:`_pool_band` for an average pooling: the window's rows summed into a bordered row (zeros outside the
    planes), the x taps summed, each pooled (q, ox) times ``rdiv[q * pow_ + ox]`` (the reciprocal of its divisor:
    :func:`~kernel_selector.kernels.pooling.pooling_kernel_cpu_fsv16.average_divisors`)."""
    ky, kx, sy, sx, pt, pl = win[0], win[1], win[2], win[3], win[4], win[5]
    wpad = (pow_ - 1) * sx + kx
    n = min(ow, wpad - pl)
    t = s[tb:tb + wpad]
    tv = s[tb + pl:tb + pl + n]
    for i in range(wpad):
        t[i] = 0.0
    for j in range(hi):
        for q in range(q0, q1):
            r_lo, r_hi = max(0, q * sy - pt), min(oh, q * sy - pt + ky)
            src = sb + j * s_f + (r_lo - a0) * ow
            v = s[src:src + n]
            for i in range(n):
                tv[i] = v[i]
            for r in range(r_lo + 1, r_hi):
                v = s[src + (r - r_lo) * ow:src + (r - r_lo) * ow + n]
                for i in range(n):
                    tv[i] += v[i]
            o = out[ob + j * o_f + q * o_y:ob + j * o_f + q * o_y + pow_]
            rd = rdiv[q * pow_:(q + 1) * pow_]
            if kx == 2 and sx == 2:
                for i in range(pow_):
                    o[i] = (t[2 * i] + t[2 * i + 1]) * rd[i]
            else:
                for i in range(pow_):
                    m = t[i * sx]
                    for d in range(1, kx):
                        m += t[i * sx + d]
                    o[i] = m * rd[i]


@numba.njit(parallel=True, **NJIT)
def oc_row_tiles_pool(x: np.ndarray, x_off: int, x_img: int, koff: np.ndarray, gw: int, sai: int, oh: int, ow: int,
                      k: int, wp: np.ndarray, oc: int, bias: np.ndarray, has_bias: int, clamp: np.ndarray, flags: int,
                      codes: np.ndarray, fa: np.ndarray, fb: np.ndarray, n_img: int, chunks: int, alt: int, ldx: int,
                      overlap: int, pair: int, win: np.ndarray, out: np.ndarray, o_off: int, o_img: int, o_f: int,
                      o_y: int, poh: int, pow_: int, scratch: np.ndarray, rows: int, slot: int,
                      rdiv: np.ndarray) -> None:  # pragma: no cover - numba
    """The convolution of :func:`.cpu_conv_oc.oc_row_tiles` (the same input, weight and epilogue arguments; no
    residual) followed by a pooling of window ``win`` (:func:`pool_window`) into an ``n_img`` × OC × ``poh`` ×
    ``pow_`` output: pooled (i, o, q, ox) at ``out[o_off + i * o_img + o * o_f + q * o_y + ox]``; max when ``rdiv``
    is empty, else average with the divisors' reciprocals ``rdiv`` (``poh`` × ``pow_``).

    A task is one (image, tile of channels, range of pooled rows); it walks its pooled rows in bands whose
    convolution rows (at most ``rows``) it computes into its thread's ``slot`` floats of ``scratch`` (the tile's
    channels ``rows`` × ``ow`` apart), runs the activations ``codes`` over them, and pools them. Rows a band
    shares with the one before are moved to its start rather than computed again; a row two tasks share is computed
    by each."""
    px, tc = tile_of(alt)
    nt = (oc + tc - 1) // tc
    ky, sy, pt = win[0], win[2], win[4]
    no_res = np.empty(0, np.float32)
    s_f = rows * ow
    bp = max(1, (rows - ky) // sy + 1)  # pooled rows per band
    last = ow - px if overlap and ow >= px else ow
    for task in prange(n_img * nt * chunks):
        part, im, o0, hi = row_task(task, chunks, nt, tc, oc)
        xb = x_off + im * x_img
        sb = numba.get_thread_id() * slot
        tb = sb + tc * s_f
        ob = o_off + im * o_img + o0 * o_f
        p0, p1 = poh * part // chunks, poh * (part + 1) // chunks
        pa0 = done = 0  # the last band's first row and the row after it
        for q0 in range(p0, p1, bp):
            q1 = min(p1, q0 + bp)
            a0, a1 = max(0, q0 * sy - pt), min(oh, (q1 - 1) * sy - pt + ky)
            start = a0
            if q0 > p0 and done > a0:  # rows the last band computed too: moved to the band's start, not redone
                for j in range(hi):
                    d = s_f * j + sb
                    v = scratch[d + (a0 - pa0) * ow:d + (done - pa0) * ow]
                    for i in range((done - a0) * ow):
                        scratch[d + i] = v[i]
                start = done
            cb = sb - a0 * ow  # row oy of the band at sb + (oy - a0) * ow
            oy = start
            while oy < a1:
                oy += row_step(x, xb, koff, gw, sai, ow, k, wp, o0 * k, hi, o0, scratch, cb, s_f, ow, bias, has_bias,
                               clamp, flags, no_res, -1, 0, 0, alt, ldx, last, pair, oy, a1)
            if codes.shape[0] and a1 > start:
                for j in range(hi):
                    chain_span(scratch, sb + j * s_f + (start - a0) * ow, (a1 - start) * ow, codes, fa, fb, no_res,
                               I0, I0)
            pa0, done = a0, a1
            if rdiv.shape[0]:
                _avg_band(scratch, sb, s_f, a0, oh, ow, hi, q0, q1, win, tb, pow_, out, ob, o_f, o_y, rdiv)
            else:
                _pool_band(scratch, sb, s_f, a0, oh, ow, hi, q0, q1, win, tb, pow_, out, ob, o_f, o_y)


def conv_params(params: Params) -> Params:
    """The Params of the convolution alone: the fused pooling dropped and the output its own unpadded bfyx (N, OC,
    OH, OW) (``cldnn_py.ops.conv_out_size`` of the input, weights and attributes)."""
    a = params.attrs_as(ConvolutionAttrs)
    x, w = params.inputs[0], params.inputs[1]
    n, _, h, wd = x.dims4
    _, _, kh, kw = w.shape
    oh = conv_out_size(h, kh, a.stride[0], a.dilation[0], a.pad[0], a.pad_end[0])
    ow = conv_out_size(wd, kw, a.stride[1], a.dilation[1], a.pad[1], a.pad_end[1])
    out = Layout(params.output.dtype, Format.bfyx, (n, w.shape[0], oh, ow))
    return dataclasses.replace(params, fused_ops=list(params.fused_ops)[:-1], output=out)


def pool_scratch(tile_channels: int, ow: int, poh: int, pow_: int, win: np.ndarray) -> tuple[np.ndarray, int, int]:
    """(scratch, rows, slot) for :func:`oc_row_tiles_pool`: a band of ``rows`` convolution rows (:func:`band_rows`)
    per thread, each thread's ``slot`` floats (whole cache lines, so no two threads share one) for every thread numba
    may run (``numba.config.NUMBA_NUM_THREADS``); kept for the kernel's life (a fresh array per run would page-fault
    on every call)."""
    rows = band_rows(tile_channels, ow, int(win[0]), int(win[2]), poh)
    slot = -(-scratch_floats(tile_channels, rows, ow, pow_, win) // 16) * 16
    return np.empty(int(numba.config.NUMBA_NUM_THREADS) * slot, np.float32), rows, slot  # type: ignore[attr-defined]
