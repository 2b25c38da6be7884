"""Typed attributes of convolution and deconvolution (clDNN ``convolution_params`` / ``deconvolution_params``)."""

from __future__ import annotations

from dataclasses import dataclass

from .base import OpAttrs


@dataclass(frozen=True)
class ConvolutionAttrs(OpAttrs):
    """2-D convolution: ``stride``, ``dilation``, ``pad`` (begin), ``pad_end`` as (y, x) pairs, ``groups``.

    Shapes: input (N, C, H, W), weights (OC, C/groups, KH, KW), output (N, OC, OH, OW) with OH from
    :func:`cldnn_py.ops.window.conv_out_size`; ``groups == C == OC`` is depthwise. ``block_diagonal`` > 1 (with
    groups 1) says the dense weights are zero outside ``block_diagonal`` equal diagonal blocks (output channel o reads
    only input channels of its group): set by densify_grouped_convolutions so a kernel may skip the zeros.
    """

    stride: tuple[int, int] = (1, 1)
    dilation: tuple[int, int] = (1, 1)
    pad: tuple[int, int] = (0, 0)
    pad_end: tuple[int, int] = (0, 0)
    groups: int = 1
    block_diagonal: int = 1


@dataclass(frozen=True)
class DeconvolutionAttrs(OpAttrs):
    """2-D transposed convolution (ONNX ConvTranspose): as :class:`ConvolutionAttrs` plus ``output_padding`` (y, x).

    Shapes: input (N, C, H, W), weights (C, OC/groups, KH, KW), output from
    :func:`cldnn_py.ops.window.deconv_out_size`.
    """

    stride: tuple[int, int] = (1, 1)
    dilation: tuple[int, int] = (1, 1)
    pad: tuple[int, int] = (0, 0)
    pad_end: tuple[int, int] = (0, 0)
    output_padding: tuple[int, int] = (0, 0)
    groups: int = 1


@dataclass(frozen=True)
class QuantizedConvolutionAttrs(ConvolutionAttrs):
    """Integer 2-D convolution (ONNX ConvInteger / QLinearConv, clDNN's convolution with ``activations_zero_points``
    and ``weights_zero_points``): the window attributes of :class:`ConvolutionAttrs` plus which optional inputs are
    present and the output's zero point.

    acc = bias + Σ (x − x_zp)·(w − w_zp[oc]) over the taps inside the input, in int32; the output is acc (i32),
    float(acc)·scale[oc] (f32), or saturate(round_half_even(float(acc)·scale[oc]) + ``output_zero_point``) (u8/i8).
    """

    has_bias: bool = False
    has_input_zero_point: bool = False
    has_weights_zero_point: bool = False
    has_output_scale: bool = False
    output_zero_point: int = 0
