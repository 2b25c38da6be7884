"""The model's own types at a network's boundary: what a user feeds and gets back, and the conversion to and from
what the engine stores.

The engine stores int64 as int32 and bool as uint8, and has no rank-0 tensors (a scalar is a ``(1,)`` buffer).
An ONNX model declares int64, bool and rank-0 tensors all the same, and its users feed and expect exactly those
(as onnxruntime and OpenVINO give them). A :class:`TensorSignature` records the declared type of one graph input
or output; :func:`to_engine` turns a fed array into the engine's array, :func:`from_engine` turns a result back.

A dimension of a signature is an int (static), a str (a symbolic dimension such as ``"batch"``; every input that
names it must agree) or None (dynamic, unnamed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import DTypeError, ShapeError

Dim = int | str | None

_I32 = np.iinfo(np.int32)
_INT_WIDENED = {np.dtype(t) for t in (np.int64, np.uint32, np.uint64, np.int16, np.uint16)}


@dataclass(frozen=True)
class TensorSignature:
    """The declared type of one graph input or output.

    ``dtype``: the numpy dtype the model declares (int64, bool, float32 ...); ``dims``: per dimension an int, a
    symbolic name (str) or None; ``()`` is a rank-0 scalar.
    """

    name: str
    dtype: np.dtype
    dims: tuple[Dim, ...]

    @property
    def is_static(self) -> bool:
        """True when every dimension is a known int."""
        return all(isinstance(d, int) for d in self.dims)

    def describe(self) -> str:
        """``int64[batch,3,?]``-style text for messages."""
        return f"{self.dtype}[{','.join('?' if d is None else str(d) for d in self.dims)}]"


def as_feed(name: str, array: object) -> np.ndarray:
    """A fed value as a plain ndarray with a native-byte-order dtype, before any check: subclasses (np.matrix, a
    masked array without masked values) become their ndarray, a big-endian array is converted to native order (the
    same values), a list or scalar goes through ``np.asarray`` (and then meets the dtype and shape checks). Raises
    DTypeError naming input ``name`` for a masked array with masked values (their data would be used as if valid)."""
    if isinstance(array, np.ma.MaskedArray):
        n = int(np.ma.count_masked(array))
        if n:
            raise DTypeError(f"input '{name}': a masked array with {n} masked value(s); fill them first "
                             f"(array.filled(value)) or feed array.data")
        array = array.data
    arr = np.asarray(array)
    if type(arr) is not np.ndarray:
        arr = arr.view(np.ndarray)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


def storage_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype the engine stores a declared dtype as: floats as float32, bool as uint8, wide integers as int32."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.dtype(np.float32)
    if dtype == np.bool_:
        return np.dtype(np.uint8)
    if dtype in _INT_WIDENED:
        return np.dtype(np.int32)
    return dtype


def check_dims(sig: TensorSignature, shape: tuple[int, ...], symbols: dict[str, int] | None = None) -> None:
    """Check a fed shape against the declared dims (rank, static sizes, symbolic sizes agreeing across inputs).

    ``symbols`` collects {symbol: size} across the inputs of one run. Raises ShapeError naming the input, the
    dimension, the expected and the actual value.
    """
    if len(shape) != len(sig.dims):
        raise ShapeError(f"input '{sig.name}': rank: expected {len(sig.dims)} ({sig.describe()}), got "
                         f"{len(shape)} {tuple(shape)}")
    for i, (d, s) in enumerate(zip(sig.dims, shape)):
        if isinstance(d, int) and d != s:
            raise ShapeError(f"input '{sig.name}': dimension {i}: expected {d} ({sig.describe()}), got {s} "
                             f"{tuple(shape)}")
        if isinstance(d, str) and symbols is not None:
            if symbols.setdefault(d, s) != s:
                raise ShapeError(f"input '{sig.name}': dimension {i} ('{d}'): expected {symbols[d]} as in the "
                                 f"other inputs that name '{d}', got {s}")


def check_dtype(sig: TensorSignature, arr: np.ndarray, engine_dtype: np.dtype) -> None:
    """Accept the declared dtype or the engine's own; raise DTypeError naming both otherwise."""
    if arr.dtype != sig.dtype and arr.dtype != engine_dtype:
        also = f" or {engine_dtype}" if engine_dtype != sig.dtype else ""
        raise DTypeError(f"input '{sig.name}': dtype: expected {sig.dtype}{also}, got {arr.dtype}")


def to_engine(sig: TensorSignature, arr: np.ndarray, engine_dtype: np.dtype,
              engine_shape: tuple[int, ...]) -> np.ndarray:
    """A fed array of the declared type as the engine stores it (shape ``engine_shape``, dtype ``engine_dtype``).

    int64 (and other wide integers) narrow to int32 when every value fits, bool becomes uint8, a rank-0 scalar
    becomes ``(1,)``. Raises DTypeError for another dtype, or naming the first value that does not fit in int32.
    """
    check_dtype(sig, arr, engine_dtype)
    if arr.dtype != engine_dtype:
        if arr.dtype in _INT_WIDENED and engine_dtype == np.int32 and arr.size:
            lo, hi = int(arr.min()), int(arr.max())
            if lo < _I32.min or hi > _I32.max:
                bad = lo if lo < _I32.min else hi
                raise DTypeError(f"input '{sig.name}': value {bad} does not fit in int32, which the engine stores "
                                 f"{sig.dtype} as (range {_I32.min}..{_I32.max})")
        arr = arr.astype(engine_dtype)
    if tuple(arr.shape) != tuple(engine_shape) and arr.size == math.prod(engine_shape):
        arr = arr.reshape(engine_shape)  # rank-0 scalar -> (1,)
    return arr


def result_shape(sig: TensorSignature, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape :func:`from_engine` gives a result the engine holds in ``shape``: the declared static dims when
    they hold as many elements, ``()`` for a ``(1,)`` result of a rank-0 (or rank-unknown) declaration."""
    static = tuple(d for d in sig.dims if isinstance(d, int))
    # no dims: rank 0, or a rank the model leaves unknown (ONNX: no shape field); only (1,) means rank 0 then
    if sig.dims and len(static) == len(sig.dims) and tuple(shape) != static and math.prod(shape) == math.prod(static):
        return static
    if not sig.dims and tuple(shape) == (1,):
        return ()
    return tuple(shape)


def from_engine(sig: TensorSignature, arr: np.ndarray) -> np.ndarray:
    """A result as the model declares it: int32 back to int64, uint8 back to bool, ``(1,)`` back to rank 0."""
    if arr.dtype != sig.dtype:
        arr = arr.astype(sig.dtype)
    shape = result_shape(sig, tuple(arr.shape))
    return arr if shape == arr.shape else arr.reshape(shape)
