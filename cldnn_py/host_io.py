"""Zero-copy I/O: a user's host arrays bound as a Network's input and output buffers (docs/zero_copy.md).

``Network.set_input_memory`` / ``set_output_memory`` keep one binding per id; this module checks the arrays and
holds what a binding needs between runs. Modes:

- input ``shared``: the kernels read the user's array itself (``Engine.wrap_host``: ``CL_MEM_USE_HOST_PTR`` on a
  device with host-unified memory, the array's own bytes on the CPU engine); nothing is copied per run.
- input ``staged``: the array is copied to the input's device buffer at the start of every ``execute()``: from a
  page-locked staging array on a device that does not share host memory (``Engine.pinned_host``; skipped when the
  user's array is one ``Network.new_input_array`` made there), from the user's array elsewhere.
- input ``device``: a :class:`~cldnn_py.memory.Memory` of the same engine (another network's output) is the buffer.
- output ``shared``: the last kernel writes into the user's array itself.
- output ``read``: the output buffer is copied straight into the user's array (one copy, no temporary).
- output ``convert``: the output is read, converted (blocks undone, padding dropped, the declared dtype and rank of
  an ONNX output) and written into the user's array.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import BindingError, DTypeError, ShapeError
from .io_signature import TensorSignature, check_dims

if TYPE_CHECKING:
    from .engine import Engine

log = logging.getLogger("cldnn_py.host_io")


@dataclass
class InputBinding:
    """What ``set_input_memory`` bound to one input: ``mode`` (module docstring), ``array`` (the user's array in the
    engine's dtype and shape; None for a Memory), ``flat`` (its bytes, 1-D uint8), ``buffer`` (what the kernels read
    in modes shared and device), ``staging`` (page-locked bytes the staged copy starts from, None to copy from
    ``flat``), ``keep`` (objects kept alive with the binding) and ``last`` (the event of the last staged copy)."""

    mode: str
    array: np.ndarray | None
    flat: np.ndarray | None
    buffer: Any = None
    staging: np.ndarray | None = None
    keep: Any = None
    last: Any = None
    source: Any = None  # the object the user passed (returned by input_memory)


@dataclass
class OutputBinding:
    """What ``set_output_memory`` bound to one output: ``mode`` (module docstring), ``array`` (the user's array, the
    declared dtype and shape), ``buffer`` (the user-memory buffer of mode shared, else None)."""

    mode: str
    array: np.ndarray
    buffer: Any = None


def aligned_array(shape: tuple[int, ...], dtype: np.dtype, align: int) -> np.ndarray:
    """A zero-filled C-contiguous array of ``shape`` and ``dtype`` whose data starts on a multiple of ``align``
    bytes (a slice of a larger uint8 allocation, which it keeps alive)."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.zeros(max(nbytes, 1) + align, np.uint8)
    off = (-raw.ctypes.data) % align
    return raw[off:off + nbytes].view(dtype).reshape(shape)


def as_host_array(what: str, pid: str, value: object) -> np.ndarray:
    """``value`` as a plain ndarray over the same memory (np.matrix and other subclasses as their ndarray view);
    BindingError naming ``what`` and ``pid`` for anything that is not an ndarray or is a masked array (its mask would
    be ignored)."""
    if isinstance(value, np.ma.MaskedArray):
        raise BindingError(f"{what} '{pid}': a masked array cannot be bound (its mask would be ignored); bind "
                           f"array.filled(value) or use set_input_data")
    if not isinstance(value, np.ndarray):
        raise BindingError(f"{what} '{pid}': expected a numpy.ndarray or a cldnn_py.Memory, got "
                           f"{type(value).__name__}")
    return value if type(value) is np.ndarray else value.view(np.ndarray)


def check_host_array(what: str, pid: str, arr: np.ndarray, shape: tuple[int, ...], dtype: np.dtype,
                     sig: TensorSignature | None = None) -> np.ndarray:
    """``arr`` checked against the engine's ``shape`` and ``dtype`` and returned as a view of that shape and dtype.

    Accepted besides the exact form: the declared dims of an ONNX signature ``sig`` holding as many elements (a
    rank-0 scalar for a ``(1,)`` buffer), a bool array where the engine stores uint8 (the same bytes). Raises
    DTypeError / ShapeError naming ``what`` and ``pid`` with the expected and actual value (a declared int64 input
    the engine stores as int32 needs set_input_data, which narrows it), BindingError for an array that is not
    C-contiguous or is read-only. Never copies."""
    dtype = np.dtype(dtype)
    if arr.dtype != dtype and not (arr.dtype == np.bool_ and dtype == np.uint8):
        declared = f"; the model declares {sig.dtype}, which the engine stores as {dtype}: set_input_data converts " \
                   f"on the host" if sig is not None and sig.dtype != dtype and arr.dtype == sig.dtype else ""
        raise DTypeError(f"{what} '{pid}': dtype: expected {dtype}, got {arr.dtype}{declared}")
    if tuple(arr.shape) != tuple(shape):
        if sig is None or arr.size != int(np.prod(shape, dtype=np.int64)):
            raise ShapeError(f"{what} '{pid}': shape: expected {tuple(shape)}, got {tuple(arr.shape)}")
        check_dims(sig, tuple(arr.shape))
    if not arr.flags.c_contiguous:
        raise BindingError(f"{what} '{pid}': the array is not C-contiguous (strides {arr.strides}); bind "
                           f"np.ascontiguousarray(a) once, or use set_input_data, which copies any layout")
    if not arr.flags.writeable:
        raise BindingError(f"{what} '{pid}': the array is read-only; a bound array is read (and, for an output, "
                           f"written) in place: bind a writeable array")
    out = arr.view(dtype) if arr.dtype != dtype else arr
    return out.reshape(shape) if tuple(out.shape) != tuple(shape) else out


def misaligned(engine: Engine, arr: np.ndarray) -> str:
    """'' when ``arr``'s data starts on a multiple of ``engine.host_alignment``, else why not (for messages)."""
    align = engine.host_alignment
    off = arr.ctypes.data % align
    return "" if off == 0 else (f"its data starts {off} bytes past a multiple of {align} (the device's "
                                f"CL_DEVICE_MEM_BASE_ADDR_ALIGN, at least 64)")


def flat_bytes(arr: np.ndarray) -> np.ndarray:
    """The bytes of a C-contiguous array as a 1-D uint8 view (no copy)."""
    return arr.reshape(-1).view(np.uint8)


def fill_output(binding: OutputBinding, memory: Any, event: Any, sig: TensorSignature | None,
                value: np.ndarray | None) -> np.ndarray:
    """Wait for ``event`` and leave the output in ``binding.array``; returns that array.

    ``memory`` is the output's Memory (None for an output known without a kernel, whose ``value`` is copied)."""
    from .io_signature import from_engine

    target = binding.array
    if memory is None:
        a = np.array(value)
        np.copyto(target, from_engine(sig, a) if sig is not None else a)
        return target
    wait = [event] if event is not None else None
    if binding.mode == "shared":
        if event is not None:
            event.wait()
    elif binding.mode == "read":
        memory.engine.read_buffer(memory.buffer, flat_bytes(target), wait_for=wait)
    elif target.dtype == memory.layout.dtype.numpy:  # blocked or padded: one strided copy into the user's array
        host = np.empty(memory.layout.buffer_size, dtype=memory.layout.dtype.numpy)
        memory.engine.read_buffer(memory.buffer, host, wait_for=wait)
        memory.layout.to_logical(host, target)
    else:  # a declared dtype of its own (int64, bool): converted on the host
        a = memory.read(wait_for=wait)
        np.copyto(target, from_engine(sig, a) if sig is not None else a)
    return target
