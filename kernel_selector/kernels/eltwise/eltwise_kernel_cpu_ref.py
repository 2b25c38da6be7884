"""eltwise_cpu_ref: the CPU engine's reference eltwise, on logical arrays (cpu_kernel_base.CpuRefKernel).

The same semantics as ``eltwise_ref`` (kernel_selector/kernels/eltwise/eltwise_kernel_ref.py and
cl_kernels/eltwise_ref.cl): inputs folded left to right with numpy broadcasting, int math (C semantics) when every
tensor is i32 and no coefficient is given, float32 math otherwise.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cldnn_py.layout import DataType
from cldnn_py.ops import EltwiseAttrs, EltwiseMode

from ...common.convert import convert
from ...common.elementwise_np import NP_ELTWISE
from ...common.eltwise_type import compute_type
from ...cpu_kernel_base import CpuRefKernel, align_operand
from ...params import Params
from ...selector import register
from .eltwise_kernel_ref import EltwiseKernelRef

Op = Callable[[np.ndarray, np.ndarray], np.ndarray]


def int_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """int32 a / b truncated toward zero; x / 0 gives 0, INT_MIN / -1 wraps (``eltwise_idiv``)."""
    a, b = np.broadcast_arrays(a, b)
    safe = np.where((b == 0) | (b == -1), 1, b)
    q = np.abs(a.astype(np.int64)) // np.abs(safe.astype(np.int64))
    q = np.where((a < 0) != (safe < 0), -q, q).astype(np.int32)
    return np.where(b == 0, np.int32(0), np.where(b == -1, -a, q)).astype(np.int32)


def int_pow(base: np.ndarray, exp: np.ndarray) -> np.ndarray:
    """int32 base ** exp by repeated squaring, wrapping like C; a negative exponent gives the truncated
    1 / base^|exp| (1 for base 1, ±1 for base -1, 0 otherwise) (``eltwise_ipow``)."""
    b, e = np.broadcast_arrays(base.astype(np.int32), exp.astype(np.int32))
    neg = np.where(b == 1, 1, np.where(b == -1, np.where(e & 1, -1, 1), 0)).astype(np.int32)
    r = np.ones(b.shape, np.int32)
    b = b.copy()
    e = np.where(e < 0, 0, e)
    while np.any(e):
        r = np.where(e & 1, r * b, r)
        b = b * b
        e = e >> 1
    return np.where(exp < 0, neg, r).astype(np.int32)


def int_fmod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """int32 remainder with the dividend's sign (C ``%``); x mod 0 and x mod -1 give 0 (``eltwise_ifmod``)."""
    a, b = np.broadcast_arrays(a, b)
    safe = np.where((b == 0) | (b == -1), 1, b)
    return np.where((b == 0) | (b == -1), 0, np.fmod(a.astype(np.int64), safe)).astype(np.int32)


def int_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """int32 remainder with the divisor's sign (Python ``%``); x mod 0 gives 0 (``eltwise_imod``)."""
    r = int_fmod(a, b)
    return np.where((r != 0) & ((r < 0) != (b < 0)), r + b, r).astype(np.int32)


def pow_to_int(v: np.ndarray) -> np.ndarray:
    """A float power about to be cast to an integer: truncation toward zero, except that a value within 1e-6
    (relative) of an integer is that integer (``eltwise_pow_to_int``)."""
    r = np.rint(v)
    return np.where(np.abs(v - r) <= np.float32(1e-6) * np.abs(r), r, np.trunc(v))


_INT_OPS: dict[str, Op] = {
    EltwiseMode.sum: np.add, EltwiseMode.sub: np.subtract, EltwiseMode.prod: np.multiply,
    EltwiseMode.div: int_div, EltwiseMode.max: np.maximum, EltwiseMode.min: np.minimum, EltwiseMode.pow: int_pow,
    EltwiseMode.prelu: lambda v, s: np.where(v >= 0, v, s * v),
    EltwiseMode.equal: lambda a, b: (a == b).astype(np.int32),
    EltwiseMode.not_equal: lambda a, b: (a != b).astype(np.int32),
    EltwiseMode.less: lambda a, b: (a < b).astype(np.int32),
    EltwiseMode.greater: lambda a, b: (a > b).astype(np.int32),
    EltwiseMode.less_equal: lambda a, b: (a <= b).astype(np.int32),
    EltwiseMode.greater_equal: lambda a, b: (a >= b).astype(np.int32),
    EltwiseMode.mask: lambda v, c: np.where(c != 0, v, 0).astype(np.int32),
    EltwiseMode.mask_not: lambda v, c: np.where(c != 0, 0, v).astype(np.int32),
    EltwiseMode.fmod: int_fmod, EltwiseMode.mod: int_mod,
}


@register
class EltwiseKernelCpuRef(CpuRefKernel):
    """Reference eltwise on the CPU engine: y = in0 ∘ in1 ∘ ... ∘ in(N-1), folded left to right.

    Modes sum (optional coefficients: Σ c_i·in_i, float32), sub, prod, div, max/min (fmax/fmin in float: a NaN
    operand is ignored), pow (C ``pow``), prelu (acc >= 0 ? acc : in_i * acc), the comparisons (1 or 0). Inputs
    broadcast numpy-style to the output's logical shape; any format, padded or not. f32 and i32: all-i32 without
    coefficients computes in int32 (wrapping; div truncates toward zero and x / 0 gives 0; pow by squaring),
    anything else in float32; an i32 output of float math is rounded to nearest even and saturated (NaN -> 0), and
    a ``pow`` is first truncated (:func:`pow_to_int`). Same key and validate() as ``eltwise_ref``; fused ops
    supported.
    """

    twin = EltwiseKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The folded result in the output's data type."""
        out = params.output
        mode = EltwiseMode(params.attrs_as(EltwiseAttrs).mode)
        coeffs = params.attrs_as(EltwiseAttrs).coefficients
        if compute_type(params) == "int":
            ops, vals = _INT_OPS, [x.astype(np.int32, copy=False) for x in inputs]
        else:
            ops, vals = NP_ELTWISE, [x.astype(np.float32, copy=False) for x in inputs]
            if mode == EltwiseMode.sum and coeffs is not None:
                vals = [np.float32(c) * v for c, v in zip(coeffs, vals)]
        vals = [align_operand(v, out.rank) for v in vals]
        acc = vals[0]
        with np.errstate(all="ignore"):
            for v in vals[1:]:
                acc = ops[mode](acc, v)
            acc = np.broadcast_to(acc, out.shape)
            if acc.dtype.kind == "f" and out.dtype != DataType.f32:
                if mode == EltwiseMode.pow:
                    acc = pow_to_int(acc)
                acc = convert(acc, out.dtype.numpy, "round")
        return acc
