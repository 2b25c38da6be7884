"""Sliding-window arithmetic shared by convolution, deconvolution and pooling: output extents and the halo.

Sizes are in elements along one spatial axis; ``pb``/``pe`` are the pads at the begin/end. The halo is the one
convention every user follows (the prepare_padding pass, the fsv16 OpenCL convolution, the CPU convolutions):
``((before_y, after_y), (before_x, after_x))``, the rows/columns outside the tensor that the windows reach.
"""

from __future__ import annotations


def conv_out_size(size: int, k: int, stride: int, dilation: int, pb: int, pe: int) -> int:
    """Output extent of a convolution window: floor((size + pb + pe - dilation*(k-1) - 1) / stride) + 1."""
    return (size + pb + pe - dilation * (k - 1) - 1) // stride + 1


def deconv_out_size(size: int, k: int, stride: int, dilation: int, pb: int, pe: int, output_padding: int) -> int:
    """Output extent of a transposed convolution: stride·(size − 1) + output_padding + dilation·(k − 1) + 1 − pb − pe
    (the ONNX ConvTranspose formula)."""
    return stride * (size - 1) + output_padding + dilation * (k - 1) + 1 - pb - pe


def pool_out_size(size: int, k: int, stride: int, pb: int, pe: int, ceil_mode: bool) -> int:
    """Output extent; in ceil mode the last window must start inside the input or its begin pad (ONNX rule)."""
    span = size + pb + pe - k
    out = (-(-span // stride) if ceil_mode else span // stride) + 1
    if ceil_mode and (out - 1) * stride >= size + pb:
        out -= 1
    return out


def last_tap(out_size: int, k: int, stride: int, dilation: int, pb: int) -> int:
    """The input index (may be past the end) that the last output's last window tap reads."""
    return (out_size - 1) * stride - pb + (k - 1) * dilation


def conv_halo(in_hw: tuple[int, int], k_hw: tuple[int, int], out_hw: tuple[int, int], stride: tuple[int, int],
              dilation: tuple[int, int], pad: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
    """((before_y, after_y), (before_x, after_x)): input rows/columns outside the tensor that a convolution's
    windows reach, for input (H, W), kernel (KH, KW), output (OH, OW), stride, dilation and begin pads (y, x)."""
    out = []
    for i in range(2):
        after = last_tap(out_hw[i], k_hw[i], stride[i], dilation[i], pad[i]) - (in_hw[i] - 1)
        out.append((pad[i], max(0, after)))
    return out[0], out[1]
