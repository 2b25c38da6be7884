"""convolution_cpu_ref: the CPU engine's reference convolution (im2col + one matmul per group, in numpy)."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from cldnn_py.ops import ConvolutionAttrs

from ...common.cpu_window import pad_spatial, window_extent
from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .convolution_kernel_ref import ConvolutionKernelRef


def im2col(xp: np.ndarray, groups: int, k: tuple[int, int], stride: tuple[int, int], dilation: tuple[int, int],
           out: tuple[int, int]) -> np.ndarray:
    """Patch matrix of a padded input ``xp`` (N, C, Hp, Wp): (N, groups, C/groups·KH·KW, OH·OW), contiguous, row
    (c, ky, kx) of column (oy, ox) = xp[n, g·C/groups + c, oy·stride_y + ky·dilation_y, ox·stride_x + kx·dilation_x].
    Built from one strided view; a 1x1 stride-1 unpadded case is a reshape without a copy."""
    n, c, _, _ = xp.shape
    sn, sc, sh, sw = xp.strides
    cg = c // groups
    view = as_strided(xp, (n, groups, cg, k[0], k[1], out[0], out[1]),
                      (sn, sc * cg, sc, sh * dilation[0], sw * dilation[1], sh * stride[0], sw * stride[1]),
                      writeable=False)
    return np.ascontiguousarray(view).reshape(n, groups, cg * k[0] * k[1], out[0] * out[1])


@register
class ConvolutionKernelCpuRef(CpuRefKernel):
    """Reference 2-D convolution on the CPU engine, the semantics of ``convolution_ref``: cross-correlation with
    stride, dilation, begin pads (the end follows from the output size), groups; out-of-range taps read zero.

    Inputs: data (N, C, H, W) f32 in any format (read logically); weights (OC, C/groups, KH, KW) plain unpadded
    oiyx/bfyx; bias (OC,) when present. Output (N, OC, OH, OW) f32. Algorithm: zero-pad, im2col
    (:func:`im2col`), then ``W_g (OC/g, C/g·KH·KW) @ cols_g`` for all groups and batches in one batched float32
    ``np.matmul`` (BLAS sgemm per group); groups with a single input and output channel (depthwise) sum the
    KH·KW weighted taps instead. Fused ops (activation, eltwise) are applied by the base.
    """

    twin = ConvolutionKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """(N, OC, OH, OW) float32."""
        a = params.attrs_as(ConvolutionAttrs)
        x = inputs[0].astype(np.float32, copy=False)
        w = inputs[1].astype(np.float32, copy=False)
        n, c = x.shape[:2]
        oc, cg, kh, kw = w.shape
        oh, ow = params.output.shape[2], params.output.shape[3]
        g = int(a.groups)
        stride, dil, pad = a.stride, a.dilation, a.pad
        need = (window_extent(oh, kh, stride[0], dil[0]), window_extent(ow, kw, stride[1], dil[1]))
        xp = pad_spatial(x, pad, need)
        ocg = oc // g
        if cg == 1 and ocg == 1:  # depthwise: per-channel weighted sum of the taps
            out = np.zeros((n, oc, oh, ow), np.float32)
            for ky in range(kh):
                for kx in range(kw):
                    y0, x0 = ky * dil[0], kx * dil[1]
                    tap = xp[:, :, y0:y0 + (oh - 1) * stride[0] + 1:stride[0],
                             x0:x0 + (ow - 1) * stride[1] + 1:stride[1]]
                    out += tap * w[:, 0, ky, kx].reshape(1, oc, 1, 1)
        else:
            cols = im2col(xp, g, (kh, kw), stride, dil, (oh, ow))
            with np.errstate(all="ignore"):  # inf·0 in the padding or data gives NaN silently, as on OpenCL
                out = np.matmul(w.reshape(g, ocg, cg * kh * kw), cols).reshape(n, oc, oh, ow)
        if len(inputs) > 2:
            out += inputs[2].astype(np.float32).reshape(1, oc, 1, 1)
        return out
