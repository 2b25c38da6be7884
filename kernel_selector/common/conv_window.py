"""The convolution window of a kernel's Params: the halo (:func:`cldnn_py.ops.conv_halo`, one convention)."""

from __future__ import annotations

from cldnn_py.ops import ConvolutionAttrs, conv_halo

from ..params import Params


def params_halo(params: Params) -> tuple[tuple[int, int], tuple[int, int]]:
    """((before_y, after_y), (before_x, after_x)): input rows/columns outside the tensor that the convolution's
    windows reach, for Params with inputs (N, C, H, W) data and (OC, C/groups, KH, KW) weights."""
    a = params.attrs_as(ConvolutionAttrs)
    _, _, h, w = params.inputs[0].dims4
    _, _, kh, kw = params.inputs[1].shape
    _, _, oh, ow = params.output.dims4
    return conv_halo((h, w), (kh, kw), (oh, ow), a.stride, a.dilation, a.pad)
