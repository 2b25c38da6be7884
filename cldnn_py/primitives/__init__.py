"""Primitive descriptors: one frozen dataclass per primitive type (DESIGN.md §1, face 1)."""

from .activation import Activation, ActivationFunc
from .base import Primitive
from .batch_norm import BatchNorm
from .concatenation import Concatenation
from .convolution import Convolution
from .crop import Crop
from .data import Data
from .eltwise import Eltwise, EltwiseMode
from .fully_connected import FullyConnected
from .input_layout import InputLayout
from .lrn import LRN
from .permute import Permute
from .pooling import Pooling, PoolingMode
from .reorder import Reorder
from .reshape import Reshape
from .scale import Scale
from .softmax import Softmax

__all__ = [
    "Activation", "ActivationFunc", "BatchNorm", "Concatenation", "Convolution", "Crop", "Data", "Eltwise",
    "EltwiseMode", "FullyConnected", "InputLayout", "LRN", "Permute", "Pooling", "PoolingMode", "Primitive",
    "Reorder", "Reshape", "Scale", "Softmax",
]
