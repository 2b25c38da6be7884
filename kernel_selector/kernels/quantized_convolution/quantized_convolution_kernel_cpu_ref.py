"""quantized_convolution_cpu_ref: the CPU engine's reference integer convolution (numpy, exact)."""

from __future__ import annotations

import numpy as np

from cldnn_py.layout import DataType
from cldnn_py.ops import QuantizedConvolutionAttrs

from ...common.cpu_window import pad_spatial, window_extent
from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from ..convolution.convolution_kernel_cpu_ref import im2col
from .quantized_convolution_kernel_ref import QuantizedConvolutionKernelRef, optional_inputs


def accumulate(params: Params, inputs: list[np.ndarray]) -> np.ndarray:
    """The int32 accumulator (N, OC, OH, OW) of a quantized_convolution: bias + Σ (x − x_zp)·(w − w_zp[oc]) over
    the taps inside the input. The centred values are multiplied and summed in float64 (one BLAS dgemm per group),
    exact for every sum below 2^53; the result wraps to int32 as the OpenCL kernel's int does."""
    a = params.attrs_as(QuantizedConvolutionAttrs)
    opt = {k: inputs[i] for k, i in optional_inputs(a).items()}
    x = inputs[0].astype(np.float64)
    w = inputs[1].astype(np.float64)
    oc, cg, kh, kw = w.shape
    if "IZP" in opt:
        x -= float(opt["IZP"].reshape(-1)[0])
    if "WZP" in opt:
        w -= opt["WZP"].astype(np.float64).reshape(-1, 1, 1, 1)
    n = x.shape[0]
    oh, ow = params.output.shape[2], params.output.shape[3]
    g = int(a.groups)
    need = (window_extent(oh, kh, a.stride[0], a.dilation[0]), window_extent(ow, kw, a.stride[1], a.dilation[1]))
    cols = im2col(pad_spatial(x, a.pad, need), g, (kh, kw), a.stride, a.dilation, (oh, ow))
    acc = np.rint(np.matmul(w.reshape(g, oc // g, cg * kh * kw), cols)).astype(np.int64).reshape(n, oc, oh, ow)
    if "BIAS" in opt:
        acc += opt["BIAS"].astype(np.int64).reshape(1, oc, 1, 1)
    return acc.astype(np.int32)


def convert_output(params: Params, acc: np.ndarray, scale: np.ndarray | None) -> np.ndarray:
    """The output of the int32 accumulator (N, OC, OH, OW) in the output's type: itself (i32); float32(acc) times
    the float32 scale (f32); or saturate(round_half_even(float32(acc)·scale) + zero point) (u8/i8), the float32
    arithmetic of the OpenCL kernels and of onnxruntime's requantization."""
    out = params.output.dtype
    if out == DataType.i32:
        return acc
    v = acc.astype(np.float32)
    if scale is not None:
        v = v * scale.astype(np.float32).reshape(1, -1, 1, 1)
    if out == DataType.f32:
        return v
    a = params.attrs_as(QuantizedConvolutionAttrs)
    lo, hi = (0, 255) if out == DataType.u8 else (-128, 127)
    return np.clip(np.rint(v) + np.float32(a.output_zero_point), lo, hi).astype(out.numpy)


@register
class QuantizedConvolutionKernelCpuRef(CpuRefKernel):
    """Reference integer convolution on the CPU engine (:func:`accumulate`, then :func:`convert_output`): the
    semantics, key and checks of ``quantized_convolution_ref``. Inputs and output as that kernel's."""

    twin = QuantizedConvolutionKernelRef

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """(N, OC, OH, OW) in the output's data type."""
        opt = optional_inputs(params.attrs_as(QuantizedConvolutionAttrs))
        return convert_output(params, accumulate(params, inputs), inputs[opt["SCALE"]] if "SCALE" in opt else None)
