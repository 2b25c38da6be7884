"""kernel_selector: params in, KernelData out. Knows nothing of the graph: passes
turn program nodes into Params (cldnn_py/kernel_params.py), kernels never see a node."""

from .jitter import JitConstants, tensor_jit
from .kernel_base import (
    DONT_USE_IF_HAVE_SOMETHING_ELSE,
    FORCE_PRIORITY_1,
    Arg,
    BaseKernelData,
    ClKernelData,
    CpuKernelData,
    KernelBase,
    KernelData,
)
from .params import FusedOp, Params, SupportedKey
from .selector import KernelSelector, Verdict, candidates, register, selector

__all__ = [
    "Arg", "BaseKernelData", "ClKernelData", "CpuKernelData", "DONT_USE_IF_HAVE_SOMETHING_ELSE", "FORCE_PRIORITY_1",
    "FusedOp", "JitConstants",
    "KernelBase", "KernelData", "KernelSelector", "Params", "SupportedKey", "Verdict", "candidates", "register",
    "selector", "tensor_jit",
]
