"""How the fast numba CPU kernels launch their ``parallel=True`` functions (:class:`Launcher`) and view their raw
buffers (:func:`viewer`)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numba
import numpy as np

from cldnn_py.layout import Layout


def viewer(lay: Layout, dtype: np.dtype | None = None) -> Callable[[np.ndarray], np.ndarray]:
    """``cpu_kernel_base.typed`` with the byte count and dtype computed once: ``typed`` recomputes
    ``Layout.bytes`` (padded_dims, np.prod) on every call, ~5 us each, a third of a small kernel's time. ``dtype``:
    the element type to view as (default the layout's; ``cpu_half.numba_viewer`` sees half as ``uint16``)."""
    nbytes, dt = lay.bytes, (lay.dtype.numpy if dtype is None else dtype)
    return lambda buf: buf[:nbytes].view(dt)


PARALLEL_MIN_WORK = 1 << 14  # below this many elements touched, a kernel runs on the calling thread only
CHUNK_ITERATIONS = 4  # prange iterations a thread grabs at a time (dynamic scheduling)


_TLS = threading.local()  # .scope: [numba's thread count now, the count at scope entry, the parallel chunk size now]
# inside launch_scope()


@contextlib.contextmanager
def launch_scope() -> Iterator[None]:
    """Within (one CPU-engine execution, on its thread): the Launchers leave numba's thread count as the last kernel
    set it and change it only when a kernel needs the other mode, instead of setting and restoring it around every
    small kernel (two ``numba.set_num_threads`` calls, ~5 us, a third of a small kernel's Python cost); the parallel
    chunk size likewise (two ``numba.set_parallel_chunksize`` calls a launch, 108 a MobileNetV3-style run); both
    values at entry come back at exit. Nested scopes are the outer one. numba's thread count is per calling thread."""
    if getattr(_TLS, "scope", None) is not None:
        yield
        return
    start = numba.get_num_threads()
    chunk = numba.get_parallel_chunksize()
    _TLS.scope = [start, start, chunk]
    try:
        yield
    finally:
        now, _, last = _TLS.scope
        _TLS.scope = None
        if now != start:
            numba.set_num_threads(start)
        if last != chunk:
            numba.set_parallel_chunksize(chunk)


def _threads(n: int) -> None:
    """Inside launch_scope: numba's thread count to ``n`` if it is not already."""
    sc = _TLS.scope
    if sc[0] != n:
        numba.set_num_threads(n)
        sc[0] = n


def _serial(fn: Callable[..., None], args: tuple[Any, ...]) -> None:
    if getattr(_TLS, "scope", None) is not None:
        _threads(1)
        fn(*args)
        return
    prev = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        fn(*args)
    finally:
        numba.set_num_threads(prev)


def _pooled(fn: Callable[..., None], args: tuple[Any, ...], chunk: int = CHUNK_ITERATIONS) -> None:
    sc = getattr(_TLS, "scope", None)
    if sc is not None:
        _threads(sc[1])
        if sc[2] != chunk:  # the chunk size, like the thread count, only when it changes (per thread in numba)
            numba.set_parallel_chunksize(chunk)
            sc[2] = chunk
        fn(*args)
        return
    old = numba.set_parallel_chunksize(chunk)
    try:
        fn(*args)
    finally:
        numba.set_parallel_chunksize(old)


class Launcher:
    """How one kernel instance runs its ``parallel=True`` numba function: on the calling thread alone when ``work``
    (elements touched) is below PARALLEL_MIN_WORK, else on numba's thread pool with dynamic scheduling
    (``numba.set_parallel_chunksize``: ``chunk`` prange iterations per grab, CHUNK_ITERATIONS unless the kernel
    asks for more, e.g. the GEMM tiles of a whole column panel that share its data), so a thread the OS has not
    scheduled yet holds up no static share. Every kernel computes each output element on one thread in a fixed
    order: the mode never changes a result. ``calls`` counts the launches.

    Why a fixed rule: the pool is numba's OpenMP layer with a short spin (:mod:`.numba_cache`), where a parallel
    region launches in ~2 us while the threads spin between the kernels of a run. On the workqueue layer (70-150
    us a launch) this class timed both modes per kernel and kept the faster; on OpenMP those timings, taken on a
    VM whose speed swings 2x within a minute, kept the calling thread for layers the pool ran twice as fast
    (SqueezeNet b1 11.1 -> 6.5 ms and MobileNetV3 5.8 -> 3.8 ms with the pool for every kernel).
    """

    def __init__(self, work: int, chunk: int = CHUNK_ITERATIONS) -> None:
        self.small = work < PARALLEL_MIN_WORK
        self.chunk = max(1, chunk)
        self.calls = 0

    def __call__(self, fn: Callable[..., None], *args: Any) -> None:
        self.calls += 1
        if self.small:
            _serial(fn, args)
        else:
            _pooled(fn, args, self.chunk)
