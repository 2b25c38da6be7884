"""Data: a constant tensor (weights, bias, statistics) uploaded by the Program (clDNN ``data``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import DTypeError, ShapeError, TopologyError
from ..layout import DataType, Format, Layout
from .base import Primitive


@dataclass(frozen=True, eq=False)
class Data(Primitive, type_name="data"):
    """A constant numpy array of rank 1-6 (f32, i32, i64, i8 or u8), logical NCHW order, stored in ``format``
    (bfyx by default; passes store pre-packed weights as e.g. ``os_iyx_osv16``).

    The array is copied at construction, so later changes to the caller's array do not leak in.
    Raises DTypeError for float64 and other unsupported dtypes (convert with ``.astype(np.float32)``), ShapeError
    for a zero-size array (naming the primitive).
    """

    array: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]
    format: Format = Format.bfyx

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.array, np.ndarray):
            raise TopologyError(f"data '{self.id}': expected a numpy array, got {type(self.array).__name__}")
        try:
            DataType.from_numpy(self.array.dtype)
        except DTypeError as e:
            raise DTypeError(f"data '{self.id}': {e}; convert with .astype(np.float32)") from None
        if not 1 <= self.array.ndim <= 6:
            raise TopologyError(f"data '{self.id}': rank must be 1-6, got shape {self.array.shape}")
        if self.array.size == 0:
            raise ShapeError(f"data '{self.id}': shape: expected every dimension >= 1 (the engine has no zero-size "
                             f"buffers), got {self.array.shape}")
        arr = np.array(self.array, copy=True, order="C")
        arr.setflags(write=False)
        object.__setattr__(self, "array", arr)

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """The array's shape and dtype in ``format``."""
        return Layout(DataType.from_numpy(self.array.dtype), self.format, self.array.shape)
