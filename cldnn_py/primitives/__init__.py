"""Primitive descriptors: one frozen dataclass per primitive type: the user's
descriptor (clDNN ``primitive``), as opposed to its program_node, primitive_inst and kernel."""

from .activation import Activation, ActivationFunc
from .arg_max import ArgMax
from .base import Primitive
from .batch_norm import BatchNorm
from .broadcast import Broadcast
from .concatenation import Concatenation
from .convolution import Convolution
from .crop import Crop
from .data import Data
from .deconvolution import Deconvolution
from .dynamic_quant_params import DynamicQuantParams
from .eltwise import Eltwise, EltwiseMode
from .fully_connected import FullyConnected
from .gather import Gather
from .gemm import Gemm
from .gru_sequence import GruSequence
from .input_layout import InputLayout
from .lrn import LRN
from .lstm_sequence import LstmSequence
from .mvn import MVN, MVNResult
from .pad import Pad
from .permute import Permute
from .pooling import Pooling, PoolingMode
from .quantized_convolution import QuantizedConvolution
from .reduce import Reduce, ReduceMode
from .reorder import Reorder
from .reshape import Reshape
from .resize import Resize
from .roi_align import RoiAlign
from .scale import Scale
from .scatter import Scatter
from .shuffle_channels import ShuffleChannels
from .softmax import Softmax
from .strided_slice import StridedSlice
from .tile import Tile
from .top_k import TopK
from .winograd import WinogradInput, WinogradOutput

__all__ = [
    "DynamicQuantParams",
    "ArgMax", "TopK", "Scatter", "LstmSequence", "GruSequence", "Reduce", "ReduceMode", "Deconvolution", "Gemm",
    "MVN", "MVNResult",
    "StridedSlice", "Pad", "Tile", "Broadcast", "Gather", "Resize", "RoiAlign", "WinogradInput", "WinogradOutput",
    "Activation", "ActivationFunc", "BatchNorm", "Concatenation", "Convolution", "Crop", "Data", "Eltwise",
    "EltwiseMode", "FullyConnected", "InputLayout", "LRN", "Permute", "Pooling", "PoolingMode", "Primitive",
    "QuantizedConvolution", "Reorder", "Reshape", "Scale", "ShuffleChannels", "Softmax",
]
