"""cldnn_py: a clDNN-style deep-learning inference engine in Python.

Describe a network as a :class:`Topology` of primitives, compile it with :class:`Program` for an :class:`Engine`
(an OpenCL device, :class:`OclEngine`, PoCL on the CPU by default; or :class:`CpuEngine`, numba kernels), and run
it with :class:`Network`. See README.md.
"""

import numpy as np

from .async_run import AsyncRun
from .cpu_engine import CpuEngine
from .debug_log import configure_debug_logging
from .device import DeviceInfo, list_devices
from .engine import Engine
from .errors import (
    BindingError,
    CldnnError,
    DeviceError,
    DTypeError,
    InputFileError,
    KernelBuildError,
    ProgramFileError,
    ShapeError,
    TopologyError,
    UnsupportedError,
)
from .frontend import OnnxImportError, load_onnx
from .infer_queue import AsyncInferQueue, InferRequest
from .layout import DataType, Format, Layout, Padding
from .memory import Memory
from .network import Network, NetworkOutput, ProfilingEntry
from .ocl_engine import OclEngine
from .primitives import (
    LRN,
    MVN,
    Activation,
    ActivationFunc,
    ArgMax,
    BatchNorm,
    Broadcast,
    Concatenation,
    Convolution,
    Crop,
    Data,
    Deconvolution,
    DynamicQuantParams,
    Eltwise,
    EltwiseMode,
    FullyConnected,
    Gather,
    Gemm,
    GruSequence,
    InputLayout,
    LstmSequence,
    MVNResult,
    Pad,
    Permute,
    Pooling,
    PoolingMode,
    Primitive,
    QuantizedConvolution,
    Reduce,
    ReduceMode,
    Reorder,
    Reshape,
    Resize,
    RoiAlign,
    Scale,
    Scatter,
    ShuffleChannels,
    Softmax,
    StridedSlice,
    Tile,
    TopK,
    WinogradInput,
    WinogradOutput,
)
from .program import BuildOptions, Program, set_constant_evaluator
from .session import InferenceSession, NodeArg
from .topology import Topology
from .version import __version__ as __version__
from .warm_start import compile_model


def _run_constant_subgraph(engine: Engine, topology: Topology) -> dict[str, np.ndarray]:
    """propagate_constants' evaluator: the constant subgraph built without optimizations and run in a Network.
    Installed here, where both Program and Network are known, so program.py needs no import of network.py."""
    return Network(Program(engine, topology, BuildOptions(optimize_data=False))).run({})


set_constant_evaluator(_run_constant_subgraph)
configure_debug_logging()  # CLDNN_PY_DEBUG=1: the cldnn_py loggers' debug records to stderr

__all__ = [
    "InferenceSession", "NodeArg", "compile_model", "AsyncInferQueue", "InferRequest", "AsyncRun",
    "ArgMax", "DynamicQuantParams", "TopK", "Scatter", "LstmSequence", "GruSequence", "Reduce", "ReduceMode",
    "Deconvolution", "Gemm",
    "MVN", "MVNResult",
    "StridedSlice", "Pad", "Tile", "Broadcast", "Gather", "Resize", "RoiAlign", "WinogradInput", "WinogradOutput",
    "LRN", "Activation", "ActivationFunc", "BatchNorm", "BuildOptions", "CldnnError", "Concatenation",
    "Convolution", "Crop", "DTypeError", "Data", "DataType", "DeviceError", "DeviceInfo", "Eltwise", "EltwiseMode",
    "Engine", "Format", "FullyConnected", "InputFileError", "InputLayout", "KernelBuildError", "Layout", "Memory",
    "Network", "BindingError",
    "NetworkOutput", "ProgramFileError",
    "Padding", "Permute", "Pooling", "PoolingMode", "Primitive", "Program", "ProfilingEntry", "QuantizedConvolution",
    "Reorder", "Reshape", "Scale", "ShapeError", "ShuffleChannels", "Softmax", "Topology", "TopologyError",
    "UnsupportedError",
    "list_devices", "load_onnx", "OnnxImportError", "OclEngine", "CpuEngine",
]
