"""Fusion rules of prepare_primitive_fusing, one per file, applied in the order of ``RULES``."""

from .fuse_activation import fuse_activation
from .fuse_activation_through_concat import fuse_activation_through_concat
from .fuse_batch_norm import fuse_batch_norm
from .fuse_bias_into_fc import fuse_bias_into_fc
from .fuse_eltwise_operand import fuse_eltwise_operand
from .fuse_eltwise_sum import fuse_eltwise_sum
from .fuse_gated_activation import fuse_gated_activation
from .fuse_scale_into_batch_norm import fuse_scale_into_batch_norm
from .fuse_scale_into_conv import fuse_scale_into_conv
from .fuse_scale_into_gemm import fuse_scale_into_gemm
from .fuse_shuffle_channels import fuse_shuffle_channels

RULES = [fuse_gated_activation, fuse_scale_into_batch_norm, fuse_batch_norm, fuse_scale_into_conv, fuse_bias_into_fc,
         fuse_scale_into_gemm, fuse_eltwise_sum, fuse_activation, fuse_eltwise_sum, fuse_eltwise_operand,
         fuse_activation_through_concat, fuse_shuffle_channels]
"""fuse_eltwise_sum twice: before the activations (bias → sum → relu) and after them (a sum after a convolution's
fused chain, carrying the sum's own fused activations: QDQ residual blocks); then eltwise ops with a broadcast
operand after a convolution's chain (a dynamically quantized layer's scale and bias, carrying their activations);
activations after a concatenation, into the kernels of its inputs; a channel shuffle into the grouped convolution
before it last (CPU engine), so that nothing fuses after it."""

__all__ = ["RULES", "fuse_activation", "fuse_activation_through_concat", "fuse_batch_norm", "fuse_bias_into_fc",
           "fuse_eltwise_operand", "fuse_eltwise_sum", "fuse_scale_into_batch_norm", "fuse_gated_activation",
           "fuse_scale_into_conv", "fuse_scale_into_gemm", "fuse_shuffle_channels"]
