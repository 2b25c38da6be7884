"""Half (IEEE binary16, ``f16``) storage in the CPU engine's numba kernels: numba has no float16 type on the CPU, so a
half tensor reaches a kernel as its raw 16-bit patterns (a ``uint16`` array, :func:`numba_viewer`) and the kernel
converts each value on load with LLVM's ``half`` type through an ``@intrinsic``, :func:`as_f32`, which leaves a
float32 as it is, so one source serves both storages. Arithmetic stays float32, as on the OpenCL engine
(docs/precision.md); kernels that write half compute into float32 and let numpy round on the store.

On x86 with F16C (every AVX2 CPU) LLVM turns the conversion of a vectorized loop into ``vcvtph2ps``, eight values an
instruction; subnormals, infinities and NaN convert exactly. (A store form, LLVM's ``fptrunc`` to ``half``, rounds to
nearest even as numpy's ``astype(np.float16)`` does; no kernel needs it yet.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from cldnn_py.layout import DataType, Layout

from .cpu_launch import viewer


def _fpext_half(context: Any, builder: Any, signature: Any, args: Any) -> Any:
    """codegen: the uint16 argument's bits as an LLVM ``half``, extended to float."""
    return builder.fpext(builder.bitcast(args[0], ir.HalfType()), ir.FloatType())


def _identity(context: Any, builder: Any, signature: Any, args: Any) -> Any:
    """codegen: the argument itself."""
    return args[0]


def _as_f32(typingctx: Any, v: Any) -> Any:
    """``v`` as float32 whatever the storage: a ``uint16`` is half bits (LLVM's fpext of a ``half``), a float32
    is itself (no instruction: a kernel's float32 specialization compiles to the code it had without the call).
    Other types do not type."""
    if v == types.uint16:
        return types.float32(types.uint16), _fpext_half
    if v == types.float32:
        return types.float32(types.float32), _identity
    return None


# The intrinsic, called from numba code as as_f32(v) (typed Any: mypy would see the typer's signature, typing
# context included).
as_f32: Any = intrinsic(_as_f32)


def numba_dtype(dtype: DataType) -> np.dtype:
    """The numpy dtype a kernel's numba code sees for a tensor of ``dtype``: ``uint16`` for f16 (half bits), the
    type itself otherwise."""
    return np.dtype(np.uint16) if dtype == DataType.f16 else np.dtype(dtype.numpy)


def numba_viewer(lay: Layout) -> Callable[[np.ndarray], np.ndarray]:
    """A function raw buffer -> its first ``lay.buffer_size`` elements as a flat array numba can take:
    :func:`~.cpu_launch.viewer` with an f16 layout seen as ``uint16`` (its half bit patterns)."""
    return viewer(lay, numba_dtype(lay.dtype))
