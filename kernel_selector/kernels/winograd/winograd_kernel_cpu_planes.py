"""winograd_input_cpu_planes, winograd_output_cpu_planes: the CPU engine's Winograd F(4×4, 3×3) transforms
(Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks", CVPR 2016) on plain bfyx data, in numba, in
the channel-major form (``cldnn_py/ops/winograd.py``): V (1, 36·C, tiles, 1) and M (1, 36·OC, tiles, 1), so the
36 products are one 1×1 convolution with 36 groups, run by the engine's packed-panel GEMM
(``convolution_cpu_packed``) between the two transforms.

The PoCL kernels of the same primitives work on b_fs_yx_fsv16, where a pixel's 16 channels are one vector; the
CPU engine keeps bfyx, whose vectors run along a row, and both transforms go plane by plane (a parallel task per
image and channel):

- input: per tile row, the 6 input rows (zero outside the image) are combined along y first, Bᵀ applied to whole
  rows (one loop along x, vectorized), then along x per tile (6 columns 4 apart); each of the 36 values of a tile
  goes to its row of V, in order of the tiles.
- output: per band of tile rows, the 36 rows of M are read along the tiles, Aᵀ applied along ξ then ν as vector
  loops over the band's tiles, plus the bias; each of the 4 output rows is stored and the fused chain applied on
  it (:func:`~kernel_selector.common.cpu_epilogue.chain_span`), or on the band's rows at once when the plane is
  contiguous and the chain reads no operand.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import DataType, Format
from cldnn_py.ops.winograd import WinogradInputAttrs, WinogradOutputAttrs

from ...common.cpu_epilogue import EMPTY, I0, NJIT, chain_arrays, chain_span, fused_reason, operand_index
from ...common.cpu_launch import Launcher, viewer
from ...common.cpu_layout import row_map
from ...cpu_kernel_base import CPU, CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register
from .winograd_input_kernel_b_fs_yx_fsv16 import winograd_input_reason
from .winograd_output_kernel_b_fs_yx_fsv16 import winograd_output_reason

F32 = frozenset({DataType.f32})
BFYX = frozenset({Format.bfyx})


@numba.njit(parallel=True, **NJIT)
def transform_input(x: np.ndarray, mi: np.ndarray, v: np.ndarray, n_img: int, c_n: int, h: int, w: int, py: int,
                    px: int, ty_n: int, tx_n: int) -> None:  # pragma: no cover - numba
    """V (1, 36·c_n, n_img·ty_n·tx_n, 1) flat (channel ξν·c_n + c, row t), from the (n_img, c_n, h, w) input ``x``
    whose element (b, c, y, x) is at mi[0] + b·mi[1] + c·mi[2] + y·mi[3] + x·mi[4]; tile (ty, tx) reads rows
    4·ty − py ... +5 and columns 4·tx − px ... +5. One task per (image, channel) plane: per tile row, Bᵀ along y
    on whole bordered rows (vector loops along x), then B along x tile by tile, each of V's rows written in order
    of t."""
    wp = tx_n * 4 + 2
    n_t = n_img * ty_n * tx_n
    lo = max(0, px)
    hi = min(wp, w + px)
    for plane in prange(n_img * c_n):
        b = plane // c_n
        c = plane % c_n
        d = np.zeros((6, wp), np.float32)
        r = np.empty((6, wp), np.float32)
        base = mi[0] + b * mi[1] + c * mi[2] - px * mi[4]
        for ty in range(ty_n):
            for k in range(6):  # the tile row's 6 input rows, zero outside the image
                iy = ty * 4 + k - py
                row = d[k]
                if iy < 0 or iy >= h:
                    for q in range(wp):
                        row[q] = 0.0
                    continue
                src = base + iy * mi[3]
                for q in range(lo, hi):
                    row[q] = x[src + q * mi[4]]
            d0, d1, d2, d3, d4, d5 = d[0], d[1], d[2], d[3], d[4], d[5]
            r0, r1, r2, r3, r4, r5 = r[0], r[1], r[2], r[3], r[4], r[5]
            for q in range(wp):  # Bᵀ along y, whole rows at once
                a0, a1, a2, a3, a4, a5 = d0[q], d1[q], d2[q], d3[q], d4[q], d5[q]
                r0[q] = 4.0 * a0 - 5.0 * a2 + a4
                r1[q] = -4.0 * a1 - 4.0 * a2 + a3 + a4
                r2[q] = 4.0 * a1 - 4.0 * a2 - a3 + a4
                r3[q] = -2.0 * a1 - a2 + 2.0 * a3 + a4
                r4[q] = 2.0 * a1 - a2 - 2.0 * a3 + a4
                r5[q] = 4.0 * a1 - 5.0 * a3 + a5
            t0 = (b * ty_n + ty) * tx_n
            for i in range(6):  # B along x, tile by tile
                ri = r[i]
                o = ((6 * i) * c_n + c) * n_t + t0
                st = c_n * n_t  # between V's rows ξν and ξν + 1
                for tx in range(tx_n):
                    q = tx * 4
                    a0, a1, a2, a3, a4, a5 = ri[q], ri[q + 1], ri[q + 2], ri[q + 3], ri[q + 4], ri[q + 5]
                    v[o + tx] = 4.0 * a0 - 5.0 * a2 + a4
                    v[o + st + tx] = -4.0 * a1 - 4.0 * a2 + a3 + a4
                    v[o + 2 * st + tx] = 4.0 * a1 - 4.0 * a2 - a3 + a4
                    v[o + 3 * st + tx] = -2.0 * a1 - a2 + 2.0 * a3 + a4
                    v[o + 4 * st + tx] = 2.0 * a1 - a2 - 2.0 * a3 + a4
                    v[o + 5 * st + tx] = 4.0 * a1 - 5.0 * a3 + a5


BAND_TILES = 256
"""The output transform works on bands of whole tile rows of about this many tiles per task (56×56: the whole
plane, 14 rows of 14 tiles; its scratch 40 floats per tile, 40 KiB, stays in L2)."""
F2, F4, F8 = np.float32(2.0), np.float32(4.0), np.float32(8.0)  # float literals would make numba compute in float64


@numba.njit(parallel=True, **NJIT)
def transform_output(m: np.ndarray, out: np.ndarray, mo: np.ndarray, bias: np.ndarray, n_img: int, oc_n: int,
                     oh: int, ow: int, ty_n: int, tx_n: int, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray,
                     res: np.ndarray, mr: np.ndarray, has_res: bool, band: int) -> None:  # pragma: no cover
    """The (n_img, oc_n, oh, ow) output, element (b, o, y, x) at mo[0] + b·mo[1] + o·mo[2] + y·mo[3] + x·mo[4],
    from M (1, 36·oc_n, n_img·ty_n·tx_n, 1) flat (channel ξν·oc_n + o, row t): Aᵀ M A per tile plus ``bias``
    (oc_n values), then the fused chain row by row (once per band when the plane is contiguous and there is no
    operand). One task per (image, output channel, band of ``band`` tile rows): Aᵀ along ξ and then A along ν as
    straight loops over the band's tiles (M's rows are contiguous along t: 16-float vector code), then each tile's
    4×4 values stored at their places (a stride-4 scatter per output row). Every loop indexes a sub-view with the
    bare loop variable: a computed index keeps numba's negative-index check and LLVM from vectorizing; this form
    runs 1.7-2.6× faster than the tile-by-tile one it replaced (56×56×64: 0.36 → 0.14-0.20 ms, 14×14×256: 0.15 →
    0.06, 2-core Zen 4 with AVX-512)."""
    n_t = n_img * ty_n * tx_n
    st = 6 * oc_n * n_t  # between M's rows ξ (positions 6ξ + ν)
    n_band = (ty_n + band - 1) // band
    whole = not has_res and mo[4] == 1 and mo[3] == ow  # ~100 ns a chain_span call: 27,648 rows of a 27×27 layer
    for task in prange(n_img * oc_n * n_band):
        plane = task // n_band
        ty0 = (task % n_band) * band
        ty1 = min(ty_n, ty0 + band)
        b = plane // oc_n
        o = plane % oc_n
        nt = (ty1 - ty0) * tx_n
        tg = (b * ty_n + ty0) * tx_n
        bo = bias[o]
        s = np.empty((4, 6, nt), np.float32)  # s[i, ν, t] = Σ_ξ Aᵀ[i, ξ] M[6ξ + ν][t]
        for nu in range(6):
            p = (nu * oc_n + o) * n_t + tg
            m0, m1, m2 = m[p:p + nt], m[p + st:p + st + nt], m[p + 2 * st:p + 2 * st + nt]
            m3, m4, m5 = m[p + 3 * st:p + 3 * st + nt], m[p + 4 * st:p + 4 * st + nt], m[p + 5 * st:p + 5 * st + nt]
            s0, s1, s2, s3 = s[0, nu], s[1, nu], s[2, nu], s[3, nu]
            for t in range(nt):
                a0, a1, a2, a3, a4, a5 = m0[t], m1[t], m2[t], m3[t], m4[t], m5[t]
                s0[t] = a0 + a1 + a2 + a3 + a4
                s1[t] = a1 - a2 + F2 * a3 - F2 * a4
                s2[t] = a1 + a2 + F4 * a3 + F4 * a4
                s3[t] = a1 - a2 + F8 * a3 - F8 * a4 + a5
        y = np.empty((4, 4, nt), np.float32)  # y[i, j, t]: output row 4·ty + i, column 4·tx + j, plus the bias
        for i in range(4):
            q0, q1, q2, q3, q4, q5 = s[i, 0], s[i, 1], s[i, 2], s[i, 3], s[i, 4], s[i, 5]
            y0, y1, y2, y3 = y[i, 0], y[i, 1], y[i, 2], y[i, 3]
            for t in range(nt):
                a0, a1, a2, a3, a4, a5 = q0[t], q1[t], q2[t], q3[t], q4[t], q5[t]
                y0[t] = a0 + a1 + a2 + a3 + a4 + bo
                y1[t] = a1 - a2 + F2 * a3 - F2 * a4 + bo
                y2[t] = a1 + a2 + F4 * a3 + F4 * a4 + bo
                y3[t] = a1 - a2 + F8 * a3 - F8 * a4 + a5 + bo
        pb = mo[0] + b * mo[1] + o * mo[2]
        s4 = 4 * mo[4]
        for ty in range(ty0, ty1):
            t0 = (ty - ty0) * tx_n
            for i in range(4):
                oy = ty * 4 + i
                if oy >= oh:
                    break
                ob = pb + oy * mo[3]
                for j in range(4):
                    hi = min(tx_n, (ow - 1 - j) // 4 + 1)  # tiles whose column j is inside the image
                    if hi <= 0:
                        continue
                    src = y[i, j, t0:t0 + hi]
                    dst = out[ob + j * mo[4]:ob + j * mo[4] + (hi - 1) * s4 + 1:s4]
                    for tx in range(hi):
                        dst[tx] = src[tx]
                if codes.shape[0] > 0 and not whole:
                    chain_span(out, ob, ow, codes, fa, fb, res, operand_index(mr, b, o, oy, I0) if has_res else 0,
                               mr[4] if has_res else 0)
        if codes.shape[0] > 0 and whole:  # a contiguous plane and no operand: the band's rows in one call
            r0, r1 = ty0 * 4, min(oh, ty1 * 4)
            chain_span(out, pb + r0 * ow, (r1 - r0) * ow, codes, fa, fb, res, I0, I0)


@register
class WinogradInputKernelCpuPlanes(CpuKernelBase):
    """V = Bᵀ d B for every 6×6 tile d (semantics in :class:`cldnn_py.primitives.winograd.WinogradInput`) on the
    CPU engine: input (N, C, H, W) f32 bfyx, padded as it likes (the padding is never read: outside the image
    counts as zeros); output channel-major (1, 36·C, N·tiles_y·tiles_x, 1) f32 bfyx unpadded. Threads: one task
    per image and channel (module docstring)."""

    name = "winograd_input_cpu_planes"
    primitive = "winograd_input"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU, f32, bfyx in and out."""
        return SupportedKey(engines=CPU, input_dtypes=F32, output_dtypes=F32, input_formats=BFYX,
                            output_formats=BFYX)

    def validate(self, params: Params) -> str | None:
        """``channel_major``, then :func:`winograd_input_reason`."""
        if not params.attrs_as(WinogradInputAttrs).channel_major:
            return "only the channel-major form (the tile-major one is the PoCL kernels')"
        return winograd_input_reason(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, V) on raw buffers."""
        a = params.attrs_as(WinogradInputAttrs)
        x, out = params.inputs[0], params.output
        n, c, h, w = x.shape
        mi = row_map(x)
        view_in, view_out = viewer(x), viewer(out)
        launch = Launcher(out.count())

        def fn(*bufs: Any) -> None:
            launch(transform_input, view_in(bufs[0]), mi, view_out(bufs[1]), n, c, h, w, a.pad_y, a.pad_x,
                   a.tiles_y, a.tiles_x)

        return fn


@register
class WinogradOutputKernelCpuPlanes(CpuKernelBase):
    """y = Aᵀ M A per 4×4 tile, plus the bias, then the fused ops (semantics in
    :class:`cldnn_py.primitives.winograd.WinogradOutput`) on the CPU engine: M channel-major (1, 36·OC,
    N·tiles_y·tiles_x, 1) f32 bfyx unpadded, the optional bias OC contiguous f32 values; output (N, OC, out_y,
    out_x) f32 bfyx, padded as it likes. Fused ops: activations and one eltwise with an operand the epilogue
    addresses (a residual). Threads: one task per image and output channel (module docstring)."""

    name = "winograd_output_cpu_planes"
    primitive = "winograd_output"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """CPU, f32, bfyx in and out."""
        return SupportedKey(engines=CPU, input_dtypes=F32, output_dtypes=F32, input_formats=BFYX,
                            output_formats=BFYX)

    def validate(self, params: Params) -> str | None:
        """``channel_major``, :func:`winograd_output_reason`, then a fused chain the epilogue takes."""
        if not params.attrs_as(WinogradOutputAttrs).channel_major:
            return "only the channel-major form (the tile-major one is the PoCL kernels')"
        return winograd_output_reason(params) or fused_reason(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(M, [bias], output, [chain operand]) on raw buffers."""
        a = params.attrs_as(WinogradOutputAttrs)
        m, out = params.inputs[0], params.output
        n, oc, oh, ow = out.shape
        has_bias = len(params.inputs) > 1
        mo = row_map(out)
        codes, fa, fb, mr = chain_arrays(list(params.fused_ops), out)
        res_lay = next((lay for op in params.fused_ops for lay in op.extra_inputs), None)
        view_m, view_out = viewer(m), viewer(out)
        view_b = viewer(params.inputs[1]) if has_bias else None
        view_res = viewer(res_lay) if res_lay is not None else None
        n_own = len(params.inputs)
        launch = Launcher(m.count())
        band = max(1, BAND_TILES // a.tiles_x)  # tile rows per task

        zeros = np.zeros(oc, np.float32)

        def fn(*bufs: Any) -> None:
            bias = view_b(bufs[1])[:oc] if view_b is not None else zeros
            res = view_res(bufs[n_own + 1]) if view_res is not None else EMPTY
            launch(transform_output, view_m(bufs[0]), view_out(bufs[n_own]), mo, bias, n, oc, oh, ow, a.tiles_y,
                   a.tiles_x, codes, fa, fb, res, mr, res_lay is not None, band)

        return fn


__all__ = ["WinogradInputKernelCpuPlanes", "WinogradOutputKernelCpuPlanes", "transform_input", "transform_output"]
