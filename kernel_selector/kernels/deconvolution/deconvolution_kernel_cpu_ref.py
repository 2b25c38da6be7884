"""deconvolution_cpu_ref: the CPU engine's reference transposed convolution (one matmul per group + col2im)."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import DeconvolutionAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .deconvolution_kernel_ref import DeconvolutionKernelRef


@register
class DeconvolutionKernelCpuRef(CpuRefKernel):
    """Reference transposed convolution on the CPU engine, the semantics of ``deconvolution_ref``: output
    (b, o, oy, ox) = bias[o] + Σ x[b, c, iy, ix]·W[c, o mod OC/groups, ky, kx] over the group's input channels c
    and the taps with iy·stride_y + ky·dilation_y = oy + pad_y (and the same along x), iy in [0, H), ix in [0, W).

    Inputs: data (N, C, H, W) f32 in any format (read logically); weights (C, OC/groups, KH, KW) plain unpadded
    oiyx/bfyx, 4-D; bias with OC elements (any shape) when present. Output (N, OC, OH, OW) f32. Algorithm (the
    scatter form of the same sum): one batched float32 ``np.matmul`` per group gives every tap's contribution
    ``cols[n, g, (o, ky, kx), (iy, ix)]``; col2im adds each tap's plane into the full output at rows
    ky·dilation_y + iy·stride_y (columns likewise); the window [pad, pad + OH) of the full output is the result
    (rows past the full output, from output_padding, hold the bias only). No fused ops, as ``deconvolution_ref``.
    """

    twin = DeconvolutionKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """(N, OC, OH, OW) float32."""
        a = params.attrs_as(DeconvolutionAttrs)
        x = inputs[0].astype(np.float32, copy=False)
        w = inputs[1].astype(np.float32, copy=False)
        n, c, h, wd = x.shape
        g = int(a.groups)
        cg = c // g
        _, ocg, kh, kw = w.shape
        oc = ocg * g
        oh, ow = params.output.shape[2], params.output.shape[3]
        (sy, sx), (dy, dx), (py, px) = tuple(a.stride), tuple(a.dilation), tuple(a.pad)
        # cols[n, g, (o, ky, kx), (iy, ix)] = sum over the group's c of W[c, o, ky, kx] * x[n, c, iy, ix]
        wt = w.reshape(g, cg, ocg * kh * kw).transpose(0, 2, 1)
        with np.errstate(all="ignore"):  # inf·0 in the padding or data gives NaN silently, as on OpenCL
            cols = np.matmul(wt, x.reshape(n, g, cg, h * wd)).reshape(n, oc, kh, kw, h, wd)
        fh = max((h - 1) * sy + (kh - 1) * dy + 1, py + oh)
        fw = max((wd - 1) * sx + (kw - 1) * dx + 1, px + ow)
        full = np.zeros((n, oc, fh, fw), np.float32)
        for ky in range(kh):
            for kx in range(kw):
                y0, x0 = ky * dy, kx * dx
                full[:, :, y0:y0 + (h - 1) * sy + 1:sy, x0:x0 + (wd - 1) * sx + 1:sx] += cols[:, :, ky, kx]
        out = full[:, :, py:py + oh, px:px + ow]
        if len(inputs) > 2:
            out = out + inputs[2].astype(np.float32).reshape(1, oc, 1, 1)
        return out
