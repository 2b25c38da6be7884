"""convolution_cpu_fsv16: blocked direct convolution in numba on b_fs_yx_fsv16 data with os_iyx_osv16 weights.

The CPU-engine counterpart of ``convolution_b_fs_yx_fsv16`` (docs/performance.md, the oneDNN direct-convolution
structure): 16 output channels are the innermost loop (one AVX-512 vector, two AVX2 ones: LLVM vectorizes it as
the trip count is a runtime argument, see ``_conv``), a block of up to ``PIX`` output pixels of one row shares
each weight vector, ``prange`` runs over (batch, output-channel block, output row). Accumulators live in a small
stack array. Taps are read without checks where the input's padding holds the convolution's zero halo
(prepare_padding) or the pixel block is inside the tensor; border blocks of an unpadded input check each tap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from cldnn_py.layout import Format
from cldnn_py.ops import ConvolutionAttrs

from ...cpu_kernel_base import CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_3, FORCE_PRIORITY_7
from ...params import Params, SupportedKey
from ...selector import register
from .cpu_conv_common import (
    G_BIAS,
    G_DEPTHWISE,
    G_DX,
    G_DY,
    G_H,
    G_ICG,
    G_KH,
    G_KW,
    G_N,
    G_OC,
    G_OCG,
    G_OH,
    G_OW,
    G_PX,
    G_PY,
    G_SX,
    G_SY,
    G_W,
    G_XMAX,
    G_XMIN,
    G_YMAX,
    G_YMIN,
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

PIX = 8  # output pixels per block (accumulators: PIX x 16 floats on the stack)
ACC = PIX * 16
FSV16 = frozenset({Format.b_fs_yx_fsv16})


@intrinsic
def _stack_f32(typingctx: Any, size: Any) -> Any:  # pragma: no cover - numba
    """A float32 pointer to ``size`` (a literal int) elements on the stack (an alloca in the entry block)."""
    if not isinstance(size, types.IntegerLiteral):
        return None
    n = size.literal_value

    def impl(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return cgutils.alloca_once(builder, context.get_value_type(types.float32), size=n)
    return types.CPointer(types.float32)(size), impl


@numba.njit(cache=True, fastmath=True, parallel=True)
def _conv(x: np.ndarray, w: np.ndarray, out: np.ndarray, bias: np.ndarray, res: np.ndarray, ops_i: np.ndarray,
          ops_f: np.ndarray, geo: np.ndarray, xd: np.ndarray, od: np.ndarray, rd: np.ndarray,
          nv: int) -> None:  # pragma: no cover - numba
    """One convolution; ``nv`` is 16 (a runtime value on purpose: LLVM then vectorizes the 16-channel loop instead
    of unrolling it and vectorizing the reduction with gathers)."""
    n_, h, wd, oc_total = geo[G_N], geo[G_H], geo[G_W], geo[G_OC]
    oh, ow, kh, kw = geo[G_OH], geo[G_OW], geo[G_KH], geo[G_KW]
    sy, sx, dy, dx, py, px = geo[G_SY], geo[G_SX], geo[G_DY], geo[G_DX], geo[G_PY], geo[G_PX]
    icg, ocg = geo[G_ICG], geo[G_OCG]
    ymin, ymax, xmin, xmax = geo[G_YMIN], geo[G_YMAX], geo[G_XMIN], geo[G_XMAX]
    has_bias, depthwise = geo[G_BIAS], geo[G_DEPTHWISE]
    ob_count = (oc_total + 15) // 16
    for t in prange(n_ * ob_count * oh):
        n = t // (ob_count * oh)
        ob = (t // oh) % ob_count
        oy = t % oh
        acc = numba.carray(_stack_f32(ACC), (PIX, 16))  # type: ignore[call-arg]
        cbase = 0 if depthwise else ((ob * 16) // ocg) * icg
        iy0 = oy * sy - py
        xrow = xd[0] + n * xd[1]
        for ox0 in range(0, ow, PIX):
            npx = min(PIX, ow - ox0)
            for p in range(npx):
                for o in range(nv):
                    acc[p, o] = 0.0
            ix0 = ox0 * sx - px
            inside = (iy0 >= ymin and iy0 + (kh - 1) * dy < ymax and ix0 >= xmin
                      and ix0 + (npx - 1) * sx + (kw - 1) * dx < xmax)
            if depthwise:
                xs = xrow + ob * xd[2]
                for ky in range(kh):
                    iy = iy0 + ky * dy
                    if not inside and (iy < 0 or iy >= h):
                        continue
                    for kx in range(kw):
                        wb = ((ob * kh + ky) * kw + kx) * 16
                        wv = w[wb:wb + 16]
                        for p in range(npx):
                            ix = ix0 + p * sx + kx * dx
                            if not inside and (ix < 0 or ix >= wd):
                                continue
                            xb = xs + iy * xd[4] + ix * xd[5]
                            xv = x[xb:xb + 16]
                            for o in range(nv):
                                acc[p, o] += xv[o] * wv[o]
            else:
                for ic in range(icg):
                    c = cbase + ic
                    xs = xrow + (c // 16) * xd[2] + (c % 16) * xd[3]
                    for ky in range(kh):
                        iy = iy0 + ky * dy
                        if not inside and (iy < 0 or iy >= h):
                            continue
                        xsy = xs + iy * xd[4]
                        for kx in range(kw):
                            wb = (((ob * icg + ic) * kh + ky) * kw + kx) * 16
                            wv = w[wb:wb + 16]
                            for p in range(npx):
                                ix = ix0 + p * sx + kx * dx
                                if not inside and (ix < 0 or ix >= wd):
                                    continue
                                xv = x[xsy + ix * xd[5]]
                                for o in range(nv):
                                    acc[p, o] += xv * wv[o]
            nvalid = min(16, oc_total - ob * 16)
            ybase = od[0] + n * od[1] + ob * od[2] + oy * od[4]
            for p in range(npx):
                ob_ = ybase + (ox0 + p) * od[5]
                for o in range(nvalid):
                    out[ob_ + o] = epilogue(acc[p, o], ob * 16 + o, n, oy, ox0 + p, bias, has_bias, ops_i, ops_f,
                                            res, rd)


@register
class ConvolutionKernelCpuFsv16(CpuKernelBase):
    """Blocked direct 2-D convolution on the CPU engine (numba, all cores through ``prange``).

    Inputs: data (N, C, H, W) f32 in ``b_fs_yx_fsv16`` (y/x/batch padding allowed: a zero halo in the padding is
    read without checks); weights (OC, C/groups, KH, KW) f32 ``os_iyx_osv16`` unpadded; bias (OC,) plain when
    present. Output (N, OC, OH, OW) f32 ``b_fs_yx_fsv16``, padding allowed (the interior and the real channels are
    written, block tails are not). Groups: 1, depthwise (groups == C == OC), or OC/groups a multiple of 16.
    Stride, dilation, pads any. Epilogue: bias, fused activations (cpu_conv_common.ACT_CODES) and one fused eltwise
    with an operand broadcastable to the output, any plain or fsv16 layout. Algorithm: oneDNN's blocked direct
    convolution (``convolution_b_fs_yx_fsv16`` for OpenCL); threads: numba's pool over (batch, OC/16, OH).
    """

    name = "convolution_cpu_fsv16"
    primitive = "convolution"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """CPU, f32, b_fs_yx_fsv16 data in and out, padding allowed."""
        return f32_key(FSV16)

    def validate(self, params: Params) -> str | None:
        """Weights os_iyx_osv16, plain bias, supported fused ops, a grouping the blocks can follow."""
        why = validate_common(params, frozenset({Format.os_iyx_osv16}))
        if why:
            return why
        g = int(params.attrs_as(ConvolutionAttrs).groups)
        c, oc, icg = params.inputs[0].dims4[1], params.inputs[1].shape[0], params.inputs[1].shape[1]
        if g > 1 and not (icg == 1 and g == c == oc) and (oc // g) % 16:
            return f"groups={g} with {oc // g} output channels per group: needs a multiple of 16 (or depthwise)"
        return None

    def priority(self, params: Params) -> int:
        """First only where a grouped GEMM is thin (:func:`thin_grouped`: depthwise, few channels per group)."""
        return FORCE_PRIORITY_3 if thin_grouped(params) else FORCE_PRIORITY_7

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(data, weights[, bias], output, [fused operands...])."""
        geo = geometry(params)
        xd, od = tensor_desc(params.inputs[0]), tensor_desc(params.output)
        ops_i, ops_f, rd = encode_fused(params)
        n_own = len(params.inputs)
        has_bias = n_own > 2
        oc = int(geo[G_OC])
        dummy = np.zeros(1, np.float32)

        def fn(*bufs: Any) -> None:
            bias = f32_view(bufs[2])[:oc] if has_bias else dummy
            _conv(f32_view(bufs[0]), f32_view(bufs[1]), f32_view(bufs[n_own]), bias,
                  fused_buffers(params, bufs, n_own), ops_i, ops_f, geo, xd, od, rd, 16)

        return fn
