"""reorder_cpu_ref: the CPU engine's reference reorder (any format and data type to any other)."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import ReorderAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .reorder_kernel_ref import ReorderKernelRef


def convert(x: np.ndarray, to: np.dtype, mode: str) -> np.ndarray:
    """``x`` in type ``to`` with the semantics of ``reorder_ref``: "round" rounds to nearest even and saturates into
    an integer type, "truncate" rounds float toward zero (saturating) and wraps integer to narrower integer (a C
    cast), "bool" is 1 where x != 0; to float is a cast."""
    to = np.dtype(to)
    if mode == "bool":
        return (x != 0).astype(to)
    if to.kind == "f":
        return x.astype(to)
    info = np.iinfo(to)
    if x.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            x64 = x.astype(np.float64)  # float32 cannot hold 2^31 - 1: clip where the bounds are exact
            r = np.rint(x64) if mode == "round" else np.trunc(x64)
            r = np.where(np.isnan(r), 0, np.clip(r, info.min, info.max))  # OpenCL _sat: NaN -> 0
        return r.astype(to)
    if mode == "round":
        return np.clip(x.astype(np.int64), info.min, info.max).astype(to)
    return x.astype(to)  # integer -> integer C cast (wraps)


@register
class ReorderKernelCpuRef(CpuRefKernel):
    """Reference reorder on the CPU engine: reads through the input Layout, converts (:func:`convert`), writes
    through the output Layout. f32, i32, i8, u8 in and out; any format; no fused ops."""

    name = "reorder_cpu_ref"
    primitive = "reorder"
    twin = ReorderKernelRef  # key and validate() are the OpenCL reference's: the same on both engines
    supports_fused_ops = False

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The input converted to the output's type."""
        return convert(inputs[0], params.output.dtype.numpy, params.attrs_as(ReorderAttrs).convert_mode)
