"""The typed op core: per primitive its typed attributes (frozen dataclasses), the mode enums and the pure shape
rules (output sizes, windows and halos, ``gemm_shapes``, ``slice_ranges``, ``normalize_axes``, ``mvn_scale_offset``).

A leaf package: it imports only :mod:`cldnn_py.layout` and :mod:`cldnn_py.errors`. Primitives (the user's
descriptors), passes, the ONNX converters and the kernels of both engines import it; nothing here knows the graph,
an engine or a kernel. ``Params.attrs`` (kernel_selector) holds one of these classes; kernels read it with
``params.attrs_as(ConvolutionAttrs)``.
"""

from .activation import DEFAULTS as ACTIVATION_DEFAULTS
from .activation import ActivationAttrs, ActivationFunc, FusedActivationAttrs
from .base import NoAttrs, OpAttrs
from .convolution import ConvolutionAttrs, DeconvolutionAttrs, QuantizedConvolutionAttrs
from .eltwise import EltwiseAttrs, EltwiseMode, FusedEltwiseAttrs
from .gemm import GemmAttrs, gemm_shapes
from .normalization import BatchNormAttrs, LRNAttrs, MVNAttrs, MVNResult, ScaleAttrs, SoftmaxAttrs, mvn_scale_offset
from .pooling import ROI_ALIGN_COORDINATE_MODES, ROI_ALIGN_MODES, PoolingAttrs, PoolingMode, RoiAlignAttrs
from .recurrent import GruSequenceAttrs, LstmSequenceAttrs
from .reduction import ArgMaxAttrs, ReduceAttrs, ReduceMode, TopKAttrs, normalize_axes
from .reorder import ReorderAttrs
from .resize import ResizeAttrs
from .shape import (
                            BroadcastAttrs,
                            ConcatenationAttrs,
                            CropAttrs,
                            GatherAttrs,
                            PadAttrs,
                            PermuteAttrs,
                            ReshapeAttrs,
                            ScatterAttrs,
                            ShuffleChannelsAttrs,
                            StridedSliceAttrs,
                            TileAttrs,
                            slice_ranges,
)
from .window import conv_halo, conv_out_size, deconv_out_size, pool_out_size
from .winograd import WinogradInputAttrs, WinogradOutputAttrs

__all__ = [
    "ACTIVATION_DEFAULTS", "ActivationAttrs", "ActivationFunc", "ArgMaxAttrs", "BatchNormAttrs", "BroadcastAttrs",
    "TopKAttrs", "ScatterAttrs", "LstmSequenceAttrs", "GruSequenceAttrs",
    "RoiAlignAttrs", "ROI_ALIGN_MODES", "ROI_ALIGN_COORDINATE_MODES", "WinogradInputAttrs", "WinogradOutputAttrs",
    "ConcatenationAttrs", "ConvolutionAttrs", "CropAttrs", "DeconvolutionAttrs", "EltwiseAttrs", "EltwiseMode",
    "FusedActivationAttrs", "FusedEltwiseAttrs", "GatherAttrs", "GemmAttrs", "LRNAttrs", "MVNAttrs", "MVNResult",
    "NoAttrs", "OpAttrs", "PadAttrs", "PermuteAttrs", "PoolingAttrs", "PoolingMode", "ReduceAttrs", "ReduceMode",
    "QuantizedConvolutionAttrs", "ReorderAttrs", "ReshapeAttrs", "ResizeAttrs", "ScaleAttrs", "ShuffleChannelsAttrs",
    "SoftmaxAttrs", "StridedSliceAttrs", "TileAttrs",
    "conv_halo", "conv_out_size", "deconv_out_size", "gemm_shapes", "mvn_scale_offset", "normalize_axes",
    "pool_out_size", "slice_ranges",
]
