"""Half (IEEE binary16, ``f16``) storage in the CPU engine's numba kernels: numba has no float16 type on the CPU, so a
half tensor reaches a kernel as its raw 16-bit patterns (a ``uint16`` array, :func:`numba_viewer`) and the kernel
converts each value with LLVM's ``half`` type through an ``@intrinsic``: :func:`h2f` on load, :func:`f2h` on store,
:func:`as_f32` where one source serves float32 and half arrays. Arithmetic stays float32, as on the OpenCL engine
(docs/precision.md).

On x86 with F16C (every AVX2 CPU) LLVM turns the conversions of a vectorized loop into ``vcvtph2ps`` /
``vcvtps2ph``, eight values an instruction; the rounding is round-to-nearest-even with overflow to infinity, the
same as numpy's ``astype(np.float16)``, and subnormals, infinities and NaN convert exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from cldnn_py.layout import DataType, Layout


def _fpext_half(context: Any, builder: Any, signature: Any, args: Any) -> Any:
    """codegen: the uint16 argument's bits as an LLVM ``half``, extended to float."""
    return builder.fpext(builder.bitcast(args[0], ir.HalfType()), ir.FloatType())


def _identity(context: Any, builder: Any, signature: Any, args: Any) -> Any:
    """codegen: the argument itself."""
    return args[0]


def _h2f(typingctx: Any, u: Any) -> Any:
    """float32 value of the half whose bit pattern is the ``uint16`` ``u`` (exact: every half is a float32)."""
    return types.float32(types.uint16), _fpext_half


def _f2h(typingctx: Any, x: Any) -> Any:
    """Bit pattern (``uint16``) of the float32 ``x`` rounded to half: to nearest even, past 65504 to infinity."""
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.bitcast(builder.fptrunc(args[0], ir.HalfType()), ir.IntType(16))

    return types.uint16(types.float32), codegen


def _as_f32(typingctx: Any, v: Any) -> Any:
    """``v`` as float32 whatever the storage: a ``uint16`` is half bits (as :func:`h2f`), a float32 is itself (no
    instruction: a kernel's float32 specialization compiles to the code it had without the call). Other types do
    not type."""
    if v == types.uint16:
        return types.float32(types.uint16), _fpext_half
    if v == types.float32:
        return types.float32(types.float32), _identity
    return None


# The intrinsics, called from numba code as h2f(u), f2h(x), as_f32(v) (typed Any: mypy would see the typer's
# signature, typing context included).
h2f: Any = intrinsic(_h2f)
f2h: Any = intrinsic(_f2h)
as_f32: Any = intrinsic(_as_f32)


def numba_dtype(dtype: DataType) -> np.dtype:
    """The numpy dtype a kernel's numba code sees for a tensor of ``dtype``: ``uint16`` for f16 (half bits), the
    type itself otherwise."""
    return np.dtype(np.uint16) if dtype == DataType.f16 else np.dtype(dtype.numpy)


def numba_viewer(lay: Layout) -> Callable[[np.ndarray], np.ndarray]:
    """A function raw buffer -> its first ``lay.buffer_size`` elements as a flat array numba can take:
    :func:`~.cpu_launch.viewer` with an f16 layout seen as ``uint16`` (its half bit patterns)."""
    nbytes, dt = lay.bytes, numba_dtype(lay.dtype)
    return lambda buf: buf[:nbytes].view(dt)
