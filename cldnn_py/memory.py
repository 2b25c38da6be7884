"""Memory: one device buffer with the Layout of what it holds.

``Memory`` wraps an engine's buffer of ``layout.bytes`` bytes (a ``pyopencl.Buffer`` on the OpenCL engine, a
64-byte aligned uint8 host array on the CPU engine). Host conversion between the logical numpy array
and the physical format (padding, blocking) goes through ``Layout.to_physical`` / ``Layout.from_physical``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .layout import Layout

if TYPE_CHECKING:
    from .engine import Engine


class Memory:
    """A device buffer holding one tensor of ``layout``; allocated zero-filled (blocked tails stay zero).

    Raises DeviceError (from ``Engine.allocate``) when the buffer exceeds the device's max allocation.
    """

    def __init__(self, engine: Engine, layout: Layout, buffer: Any) -> None:
        self.engine = engine
        self.layout = layout
        self.buffer = buffer

    @property
    def bytes(self) -> int:
        """Size of the buffer in bytes."""
        return self.layout.bytes

    def write(self, array: np.ndarray, wait_for: list[Any] | None = None, blocking: bool = True) -> Any:
        """Copy a logical host array (shape ``layout.shape``) into the buffer; returns the copy event."""
        phys = self.layout.to_physical(array)
        return self.engine.write_buffer(self.buffer, phys, wait_for=wait_for, blocking=blocking)

    def read(self, wait_for: list[Any] | None = None) -> np.ndarray:
        """Wait for ``wait_for`` and return the logical host array (padding dropped, blocks undone)."""
        host = np.empty(self.layout.buffer_size, dtype=self.layout.dtype.numpy)
        self.engine.read_buffer(self.buffer, host, wait_for=wait_for)
        return self.layout.from_physical(host)

    def __repr__(self) -> str:
        return f"Memory({self.layout}, {self.bytes} bytes)"
