"""CPU kernels (engine kind "cpu"): how they receive their buffers and how the reference ones are written.

A CPU kernel's KernelData holds a ``CpuKernelData`` whose ``fn`` replaces OpenCL source. The CPU engine calls it
with the kernel's arguments in ``args`` order: the raw host buffers (64-byte aligned ``uint8`` arrays, possibly
larger than the tensor: a memory-pool slot) and scalars. ``fn`` was made from the Params, so it knows every layout.

- :class:`CpuKernelBase`: registration under engine "cpu", default key (any data type, any format, padding
  allowed), ``kernel_data`` building ``fn`` from ``make_fn(params)``.
- :class:`CpuRefKernel`: a reference kernel written on logical arrays. The base reads each input buffer through
  its Layout (every format, padding and block tails) into a logical array, calls ``compute(params, inputs)``, applies
  the fused ops (activations, eltwise with a broadcast operand) in numpy, and writes the result into the interior
  of the output buffer only (an in-place concat slice or a padded buffer keeps everything else). Index maps
  logical -> physical are computed once per layout (``physical_index``).
Fast CPU kernels (numba, ``numba.njit(parallel=True, fastmath=True, cache=True)``) subclass CpuKernelBase and work on
the physical buffers themselves (``typed``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from cldnn_py.layout import DataType, Format, Layout

from .common.elementwise_np import NP_ELTWISE, activation
from .kernel_base import DONT_USE_IF_HAVE_SOMETHING_ELSE, Arg, CpuKernelData, KernelBase, KernelData
from .params import FusedOp, Params, SupportedKey

CPU = frozenset({"cpu"})


def cpu_plain_key(dtypes: frozenset[DataType]) -> SupportedKey:
    """The key of a CPU row kernel that reads contiguous rows: engine "cpu", ``dtypes`` in and out, bfyx without
    padding (mvn_cpu_rows, permute_cpu_copy, gather_cpu_rows)."""
    bfyx = frozenset({Format.bfyx})
    return SupportedKey(engines=CPU, input_dtypes=dtypes, output_dtypes=dtypes, input_formats=bfyx,
                        output_formats=bfyx, padded_inputs=False, padded_output=False)


def cpu_f32_key(formats: frozenset[Format] | None) -> SupportedKey:
    """The key of a fast CPU kernel: engine "cpu", f32 in and out, data and output in ``formats`` (None: any),
    padding allowed."""
    f32 = frozenset({DataType.f32})
    return SupportedKey(engines=CPU, input_dtypes=f32, output_dtypes=f32, input_formats=formats,
                        output_formats=formats)


@lru_cache(maxsize=512)
def physical_index(layout: Layout) -> np.ndarray:
    """int64 array of the layout's logical shape: the flat physical index (in elements) of each logical element."""
    return layout.from_physical(np.arange(layout.buffer_size, dtype=np.int64))


def typed(buf: np.ndarray, layout: Layout) -> np.ndarray:
    """The first ``layout.buffer_size`` elements of a raw uint8 buffer, viewed as the layout's data type."""
    return buf[:layout.bytes].view(layout.dtype.numpy)


def read_logical(buf: np.ndarray, layout: Layout) -> np.ndarray:
    """A copy of the tensor a buffer holds, as a logical array of ``layout.shape``."""
    return typed(buf, layout)[physical_index(layout)]


def write_logical(buf: np.ndarray, layout: Layout, value: np.ndarray) -> None:
    """Write a logical array (broadcast to ``layout.shape``, cast to its type) into the interior of the buffer."""
    idx = physical_index(layout)
    typed(buf, layout)[idx] = np.broadcast_to(np.asarray(value), idx.shape).astype(layout.dtype.numpy, copy=False)


def align_operand(x: np.ndarray, rank: int) -> np.ndarray:
    """``x`` reshaped for numpy broadcasting against a rank-``rank`` tensor (leading 1s added)."""
    return x.reshape((1,) * (rank - x.ndim) + x.shape) if x.ndim < rank else x


def apply_fused(val: np.ndarray, ops: list[FusedOp], operands: list[np.ndarray]) -> np.ndarray:
    """The fused ops applied in order to ``val`` (logical): activations by :func:`activation`, eltwise ops with
    their operand (one logical array per eltwise, in order) broadcast numpy-style. Raises ValueError for an unknown
    kind or mode."""
    it = iter(operands)
    for op in ops:
        if op.kind == "activation":
            val = activation(val, op.act().func, op.act().a, op.act().b)
        elif op.kind == "eltwise":
            mode = op.elt().mode
            if mode not in NP_ELTWISE:
                raise ValueError(f"fused eltwise mode {mode!r} is not supported on the CPU engine")
            with np.errstate(all="ignore"):
                val = NP_ELTWISE[mode](val, align_operand(next(it), val.ndim))
        else:
            raise ValueError(f"fused op kind {op.kind!r} is not supported on the CPU engine")
    return val


def apply_fused_inplace(val: np.ndarray, ops: list[FusedOp], operands: list[np.ndarray]) -> None:
    """:func:`apply_fused` written back into ``val`` (a float array, e.g. a view of an output buffer) without
    temporaries for the common cases (relu, eltwise with ``out=``); the same semantics."""
    it = iter(operands)
    for op in ops:
        if op.kind == "activation" and op.act().func == "relu":
            np.maximum(val, 0, out=val)
            val[np.isnan(val)] = 0  # relu is x > 0 ? x : 0, so NaN -> 0 (np.maximum keeps NaN)
        elif op.kind == "eltwise" and isinstance(NP_ELTWISE.get(op.elt().mode), np.ufunc):
            with np.errstate(all="ignore"):
                NP_ELTWISE[op.elt().mode](val, align_operand(next(it), val.ndim), out=val)  # type: ignore[call-arg]
        else:
            val[...] = apply_fused(val, [op], [next(it)] if op.kind == "eltwise" else [])


def operand_view(buf: np.ndarray, layout: Layout) -> np.ndarray:
    """A fused operand as a logical array: a zero-copy view for an unpadded bfyx buffer, else a gathered copy."""
    if layout.format.value == "bfyx" and layout.padding.is_zero:
        return typed(buf, layout)[:layout.count()].reshape(layout.shape)
    return read_logical(buf, layout)


class CpuKernelBase(KernelBase):
    """Base of every CPU kernel: engine kind "cpu", key any type/format/padding, ``fn`` from ``make_fn``."""

    engine = "cpu"

    def supported_key(self) -> SupportedKey:
        """CPU engine, any data type, any format, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=None, output_dtypes=None)

    def make_fn(self, params: Params) -> Callable[..., None]:
        """The callable the CPU engine runs with ``args(params)`` (plus fused-op inputs) in order."""
        raise NotImplementedError

    def kernel_data(self, params: Params) -> KernelData:
        """One "enqueue" of ``make_fn(params)``; the fused ops' extra inputs follow the kernel's own arguments."""
        args = self.args(params)
        if self.supports_fused_ops:
            args += [Arg("input", i) for op in params.fused_ops for i in op.dep_indices]
        return KernelData(self.name, [CpuKernelData(f"{self.name}__cpu", self.make_fn(params), args)])


def _promote(a: np.ndarray) -> np.ndarray:
    """float16 values as float32 (exact), anything else itself: reference kernels compute in float32 whatever the
    storage."""
    return a.astype(np.float32) if a.dtype == np.float16 else a


class CpuRefKernel(CpuKernelBase):
    """Reference CPU kernel on logical arrays: subclasses implement :meth:`compute`. Fused ops are applied by the
    base (``supports_fused_ops``); priority DONT_USE_IF_HAVE_SOMETHING_ELSE."""

    supports_fused_ops = True
    twin: type[KernelBase] | None = None  # the primitive's OpenCL reference: its key and validate() are shared

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass with a ``twin`` takes from it the primitive and, unless it sets them itself, the name
        ``<prim>_cpu_ref`` (the twin's ``<prim>_ref`` with ``_cpu``), ``supports_fused_ops`` and ``n_data_inputs``."""
        super().__init_subclass__(**kwargs)
        if cls.twin is not None:
            cls.primitive = cls.primitive or cls.twin.primitive
            if not cls.__dict__.get("name"):
                cls.name = cls.twin.name.removesuffix("_ref") + "_cpu_ref"
            for attr in ("supports_fused_ops", "n_data_inputs"):  # as the twin, unless the subclass says
                if attr not in cls.__dict__:
                    setattr(cls, attr, getattr(cls.twin, attr))

    def priority(self, params: Params) -> int:
        """Reference kernels lose to any other valid kernel."""
        return DONT_USE_IF_HAVE_SOMETHING_ELSE

    def supported_key(self) -> SupportedKey:
        """The ``twin`` OpenCL reference's key for the CPU engine (the same data types and formats on both
        engines); without a twin, any data type and format."""
        if self.twin is None:
            return super().supported_key()
        return dataclasses.replace(self.twin().supported_key(), engines=CPU)

    def validate(self, params: Params) -> str | None:
        """The ``twin`` OpenCL reference's verdict (the same reasons on both engines), or None without a twin."""
        return self.twin().validate(params) if self.twin is not None else None

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The primitive on logical input arrays (``params.inputs`` order; f16 tensors arrive as float32: half is
        storage only, as on the OpenCL engine); returns the logical output (any float or int type: it is cast to
        the output's)."""
        raise NotImplementedError

    def make_fn(self, params: Params) -> Callable[..., None]:
        """Reads inputs, computes, applies fused ops, writes the output interior."""
        ins = list(params.inputs)
        out = params.output
        ops = list(params.fused_ops)
        extra = [lay for op in ops for lay in op.extra_inputs]

        def fn(*bufs: Any) -> None:
            xs = [_promote(read_logical(b, lay)) for b, lay in zip(bufs[:len(ins)], ins)]
            val = np.asarray(self.compute(params, xs))
            if ops:
                operands = [_promote(read_logical(b, lay)) for b, lay in zip(bufs[len(ins) + 1:], extra)]
                val = apply_fused(val.astype(np.float32) if val.dtype.kind != "f" else val, ops, operands)
            write_logical(bufs[len(ins)], out, val.reshape(out.shape) if val.size == out.count() else val)

        return fn
