"""convolution_cpu_gemm: im2col (none for an unpadded bfyx 1x1 stride-1 input) + one BLAS sgemm per batch and group.

For dense convolutions BLAS (numpy's OpenBLAS, multi-threaded) is far ahead of a numba direct loop, so this is the
CPU engine's default convolution. ``out_g (OC/g, OH·OW) = W_g (OC/g, C/g·KH·KW) @ cols_g (C/g·KH·KW, OH·OW)``;
the patch matrix is a numpy strided view for bfyx data (one copy) or a numba ``prange`` loop reading the input
through its layout (other plain formats, ``b_fs_yx_fsv16``; padding; out-of-range taps zero). A plain unpadded
output takes the sgemm result in place and bias and fused ops in numpy; any other layout is written by a numba
epilogue loop (interior only). ResNet-50 at batch 1 on the CPU engine (``cldnn-py benchmark MODEL --device cpu``):
175 ms with the numba im2col, the numba epilogue and BLAS held to one thread; 80-105 ms with this.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange
from numpy.lib.stride_tricks import sliding_window_view

from cldnn_py.layout import Format, Layout
from cldnn_py.ops import ConvolutionAttrs

from ...cpu_kernel_base import CpuKernelBase, apply_fused_inplace, operand_view
from ...kernel_base import FORCE_PRIORITY_3, FORCE_PRIORITY_5, FORCE_PRIORITY_7
from ...params import Params, SupportedKey
from ...selector import register
from .cpu_conv_common import (
    G_BIAS,
    G_DX,
    G_DY,
    G_H,
    G_ICG,
    G_KH,
    G_KW,
    G_OC,
    G_OH,
    G_OW,
    G_PX,
    G_PY,
    G_SX,
    G_SY,
    G_W,
    PLAIN_DATA,
    PLAIN_WEIGHTS,
    encode_fused,
    epilogue,
    f32_key,
    f32_view,
    fused_buffers,
    geometry,
    tensor_desc,
    thin_grouped,
    validate_common,
)

DATA_FORMATS = PLAIN_DATA | {Format.b_fs_yx_fsv16}


def im2col_plain(x: np.ndarray, lay: Layout, n: int, c0: int, icg: int, kh: int, kw: int, stride: tuple[int, int],
                 dil: tuple[int, int], pad: tuple[int, int], oh: int, ow: int) -> np.ndarray:
    """(icg·kh·kw, oh·ow) patch matrix of batch item n, channels c0..c0+icg of a bfyx buffer (padding allowed),
    through one strided view and one copy (numpy; 3-4x faster than the numba loop on ResNet-50's 3x3 layers)."""
    pb, pf, py, px = lay.padding.lower
    _, fp, hp, wp = lay.padded_dims
    _, _, h, w = lay.dims4
    img = x[:lay.buffer_size].reshape(-1, fp, hp, wp)[pb + n, pf + c0:pf + c0 + icg, py:py + h, px:px + w]
    sy, sx = stride
    dy, dx = dil
    need_y = (oh - 1) * sy + (kh - 1) * dy + 1
    need_x = (ow - 1) * sx + (kw - 1) * dx + 1
    img = np.pad(img, ((0, 0), (pad[0], max(0, need_y - h - pad[0])), (pad[1], max(0, need_x - w - pad[1]))))
    win = sliding_window_view(img, ((kh - 1) * dy + 1, (kw - 1) * dx + 1), axis=(1, 2))
    win = win[:, :(oh - 1) * sy + 1:sy, :(ow - 1) * sx + 1:sx, ::dy, ::dx]  # (icg, oh, ow, kh, kw)
    return np.ascontiguousarray(win.transpose(0, 3, 4, 1, 2)).reshape(icg * kh * kw, oh * ow)


@numba.njit(cache=True, fastmath=True, parallel=True)
def _im2col(x: np.ndarray, cols: np.ndarray, geo: np.ndarray, xd: np.ndarray, n: int,
            c0: int) -> None:  # pragma: no cover - numba
    """cols[(c, ky, kx), (oy, ox)] = input (n, c0 + c, oy·sy − py + ky·dy, ox·sx − px + kx·dx), zero outside."""
    h, wd, icg = geo[G_H], geo[G_W], geo[G_ICG]
    oh, ow, kh, kw = geo[G_OH], geo[G_OW], geo[G_KH], geo[G_KW]
    sy, sx, dy, dx, py, px = geo[G_SY], geo[G_SX], geo[G_DY], geo[G_DX], geo[G_PY], geo[G_PX]
    for r in prange(icg * kh):
        ic = r // kh
        ky = r % kh
        c = c0 + ic
        xs = xd[0] + n * xd[1] + (c // 16) * xd[2] + (c % 16) * xd[3]
        for kx in range(kw):
            row = (r * kw + kx)
            for oy in range(oh):
                iy = oy * sy - py + ky * dy
                o0 = oy * ow
                if iy < 0 or iy >= h:
                    for ox in range(ow):
                        cols[row, o0 + ox] = 0.0
                    continue
                xsy = xs + iy * xd[4]
                for ox in range(ow):
                    ix = ox * sx - px + kx * dx
                    cols[row, o0 + ox] = x[xsy + ix * xd[5]] if 0 <= ix < wd else 0.0


@numba.njit(cache=True, fastmath=True, parallel=True)
def _store(y: np.ndarray, out: np.ndarray, bias: np.ndarray, res: np.ndarray, ops_i: np.ndarray,
           ops_f: np.ndarray, geo: np.ndarray, od: np.ndarray, rd: np.ndarray, n: int) -> None:  # pragma: no cover
    """out[n, oc, oy, ox] = epilogue(y[oc, oy·OW + ox]) for every real channel (interior of the output layout),
    by rows of 16 channels x one output row; the innermost loop follows the output's contiguous dimension."""
    oc_total, oh, ow, has_bias = geo[G_OC], geo[G_OH], geo[G_OW], geo[G_BIAS]
    ob_count = (oc_total + 15) // 16
    lanes_inner = od[3] <= od[5]
    for r in prange(ob_count * oh):
        ob = r // oh
        oy = r % oh
        nvalid = min(16, oc_total - ob * 16)
        base = od[0] + n * od[1] + ob * od[2] + oy * od[4]
        if lanes_inner:
            for ox in range(ow):
                for o in range(nvalid):
                    oc = ob * 16 + o
                    out[base + ox * od[5] + o * od[3]] = epilogue(y[oc, oy * ow + ox], oc, n, oy, ox, bias, has_bias,
                                                                  ops_i, ops_f, res, rd)
        else:
            for o in range(nvalid):
                oc = ob * 16 + o
                for ox in range(ow):
                    out[base + ox * od[5] + o * od[3]] = epilogue(y[oc, oy * ow + ox], oc, n, oy, ox, bias, has_bias,
                                                                  ops_i, ops_f, res, rd)


@register
class ConvolutionKernelCpuGemm(CpuKernelBase):
    """2-D convolution as GEMM on the CPU engine: im2col, numpy/OpenBLAS sgemm, epilogue.

    Inputs: data (N, C, H, W) f32 in bfyx, byxf, yxfb, fyxb or b_fs_yx_fsv16 (padding allowed); weights
    (OC, C/groups, KH, KW) f32 unpadded, plain oiyx/bfyx (used in place) or os_iyx_osv16 (unpacked to oiyx on each
    run: the layout optimizer packs a blocked convolution's weights); bias (OC,) plain. Output (N, OC, OH, OW) f32
    in any of those formats, padding allowed (interior only). Any groups, stride, dilation, pads. The im2col is a
    numpy strided view copied once for bfyx data (:func:`im2col_plain`), a numba loop for the other formats, and
    skipped for an unpadded bfyx input with a 1x1 stride-1 unpadded kernel. A plain unpadded output receives the
    sgemm directly and bias and fused ops in place in numpy (:func:`apply_fused_inplace`); other outputs go
    through the numba epilogue (cpu_conv_common: activations and one eltwise). Threads: OpenBLAS's (all cores) for
    the GEMM, numba's for the numba loops.
    """

    name = "convolution_cpu_gemm"
    primitive = "convolution"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """CPU, f32, plain or b_fs_yx_fsv16 data in and out, padding allowed."""
        return f32_key(DATA_FORMATS)

    def validate(self, params: Params) -> str | None:
        """Rank 4, plain or os_iyx_osv16 weights, plain bias, supported fused ops."""
        return validate_common(params, PLAIN_WEIGHTS | {Format.os_iyx_osv16})

    def priority(self, params: Params) -> int:
        """Measured (benchmarks/cpu_kernels.py): first for every dense shape (C/groups·KH·KW >= 64, all of
        ResNet-50) and for every ungrouped one; a thin grouped GEMM (depthwise, few channels per group) goes to
        ``convolution_cpu_fsv16`` where that validates. Ungrouped thin shapes stay here: SqueezeNet's first layer
        (3→64, 3x3/2, K = 27) took 72 ms at batch 8 in the numba kernel and 7 ms here. Since
        ``convolution_cpu_packed`` exists, this kernel is first only for plain weights on plain data (forced, or
        where the weights are not constant): on blocked data FORCE_PRIORITY_5, behind the packed GEMM."""
        if thin_grouped(params):
            return FORCE_PRIORITY_7
        return FORCE_PRIORITY_5 if params.inputs[0].format == Format.b_fs_yx_fsv16 else FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(data, weights[, bias], output, [fused operands...])."""
        geo = geometry(params)
        x_lay, w_lay = params.inputs[0], params.inputs[1]
        xd, od = tensor_desc(x_lay), tensor_desc(params.output)
        ops_i, ops_f, rd = encode_fused(params)
        n_own = len(params.inputs)
        has_bias = n_own > 2
        oc, icg, kh, kw = w_lay.shape
        n_, c, h, wd = x_lay.dims4
        oh, ow = int(geo[G_OH]), int(geo[G_OW])
        g = int(params.attrs_as(ConvolutionAttrs).groups)
        ocg, k = oc // g, icg * kh * kw
        a = params.attrs_as(ConvolutionAttrs)
        direct = (x_lay.format == Format.bfyx and x_lay.padding.is_zero and kh == kw == 1
                  and a.stride == (1, 1) and a.pad == (0, 0) and (oh, ow) == (h, wd))
        packed = w_lay.format == Format.os_iyx_osv16
        ob = -(-oc // 16)
        dummy = np.zeros(1, np.float32)
        out_lay = params.output
        # plain unpadded output: the sgemm writes straight into it and bias / fused ops run in numpy on that view
        direct_out = out_lay.format == Format.bfyx and out_lay.padding.is_zero
        plain_in = x_lay.format == Format.bfyx
        ops = list(params.fused_ops)
        extra = [lay for op in ops for lay in op.extra_inputs]

        def fn(*bufs: Any) -> None:
            x = f32_view(bufs[0])
            wflat = f32_view(bufs[1])
            if packed:
                wm = np.ascontiguousarray(wflat[:ob * k * 16].reshape(ob, k, 16).transpose(0, 2, 1).reshape(
                    ob * 16, k)[:oc])
            else:
                wm = wflat[:oc * k].reshape(oc, k)
            bias = f32_view(bufs[2])[:oc] if has_bias else dummy
            out = f32_view(bufs[n_own])
            cols = np.empty((k, oh * ow) if not (direct or plain_in) else (1, 1), np.float32)
            if direct_out:
                operands = [operand_view(b, lay) for b, lay in zip(bufs[n_own + 1:], extra)]
            else:
                res = fused_buffers(params, bufs, n_own)
                y = np.empty((oc, oh * ow), np.float32)
            for n in range(n_):
                if direct_out:
                    y = out[n * oc * oh * ow:(n + 1) * oc * oh * ow].reshape(oc, oh * ow)
                for gi in range(g):
                    src = cols
                    if direct:
                        src = x[(n * c + gi * icg) * h * wd:(n * c + (gi + 1) * icg) * h * wd].reshape(icg, h * wd)
                    elif plain_in:
                        src = im2col_plain(x, x_lay, n, gi * icg, icg, kh, kw, a.stride,
                                           a.dilation, a.pad, oh, ow)
                    else:
                        _im2col(x, cols, geo, xd, n, gi * icg)
                    np.matmul(wm[gi * ocg:(gi + 1) * ocg], src, out=y[gi * ocg:(gi + 1) * ocg])
                if not direct_out:
                    _store(y, out, bias, res, ops_i, ops_f, geo, od, rd, n)
                    continue
                if has_bias:
                    y += bias[:, None]
                if ops:
                    apply_fused_inplace(y.reshape(1, oc, oh, ow), ops, [o[n:n + 1] if o.ndim == 4 and o.shape[0] == n_
                                                                        else o for o in operands])

        return fn
