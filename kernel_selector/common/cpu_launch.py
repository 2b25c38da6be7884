"""How the fast numba CPU kernels launch their ``parallel=True`` functions (:class:`Launcher`) and view their raw
buffers (:func:`viewer`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from cldnn_py.layout import Layout


def viewer(lay: Layout) -> Callable[[np.ndarray], np.ndarray]:
    """``cpu_kernel_base.typed`` with the byte count and dtype computed once: ``typed`` recomputes
    ``Layout.bytes`` (padded_dims, np.prod) on every call, ~5 us each, a third of a small kernel's time."""
    nbytes, dt = lay.bytes, lay.dtype.numpy
    return lambda buf: buf[:nbytes].view(dt)


PARALLEL_MIN_WORK = 1 << 19  # below this many elements touched, a kernel runs on the calling thread only
# at or above this much work a kernel always runs on the pool: timing both modes there let one slow pooled sample
# (this VM swings 2x within a minute) pin a 100 MFLOP convolution to one thread for 32 calls (ResNet-50's
# 1x1 1024->256 at 14x14: 0.70 ms instead of 0.36 in benchmarks/cpu_kernels.py)
POOL_ALWAYS_WORK = 1 << 22
CHUNK_ITERATIONS = 4  # prange iterations a thread grabs at a time (dynamic scheduling)
EXPLORE_EVERY = 32  # a launcher re-times the mode it is not using once per this many calls


def _serial(fn: Callable[..., None], args: tuple[Any, ...]) -> None:
    prev = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        fn(*args)
    finally:
        numba.set_num_threads(prev)


def _pooled(fn: Callable[..., None], args: tuple[Any, ...], chunk: int = CHUNK_ITERATIONS) -> None:
    old = numba.set_parallel_chunksize(chunk)
    try:
        fn(*args)
    finally:
        numba.set_parallel_chunksize(old)


class Launcher:
    """How one kernel instance runs its ``parallel=True`` numba function: on the calling thread alone when ``work``
    (elements touched) is below PARALLEL_MIN_WORK, on the pool at or above POOL_ALWAYS_WORK, else on the calling
    thread or the thread pool, whichever its own timings say is faster (both timed on calls 2-5, the first being
    numba's load or compile; the losing mode re-timed every EXPLORE_EVERY calls; exponential averages). The pool
    uses dynamic scheduling (``numba.set_parallel_chunksize``: ``chunk`` prange iterations per grab,
    CHUNK_ITERATIONS unless the kernel asks for more, e.g. the GEMM tiles of a whole column panel that share its
    data) so a thread the OS has not scheduled yet holds up no static share.
    Every kernel computes each output element on one thread in a fixed order: the mode never changes a result.

    Why timings and not a rule: on this 2-core machine under load (load average 5-7 from other processes, OpenMP
    threading layer) a parallel region costs 5-8 ms with the static schedule whatever the size (ResNet-50's
    global pooling: 8 ms against 0.15 ms on one thread), and dynamic chunks still have a median several times
    their minimum (ResNet pool1: 0.43 ms min, 0.9-6 ms median; one thread 0.8 / 1.0 ms), while on an idle machine
    the pool is up to 2x faster.
    """

    def __init__(self, work: int, chunk: int = CHUNK_ITERATIONS) -> None:
        self.small = work < PARALLEL_MIN_WORK
        self.big = work >= POOL_ALWAYS_WORK
        self.chunk = max(1, chunk)
        self.avg = [0.0, 0.0]  # seconds: [calling thread, pool]
        self.calls = 0

    def __call__(self, fn: Callable[..., None], *args: Any) -> None:
        if self.small:
            _serial(fn, args)
            return
        n = self.calls
        self.calls += 1
        if n == 0:  # the first call loads or compiles the function: not a timing
            _serial(fn, args)
            return
        if self.big:
            _pooled(fn, args, self.chunk)
            return
        if n < 5:
            mode = n % 2
        else:
            best = 0 if self.avg[0] <= self.avg[1] else 1
            mode = 1 - best if n % EXPLORE_EVERY == 0 else best
        t0 = time.perf_counter()
        if mode:
            _pooled(fn, args, self.chunk)
        else:
            _serial(fn, args)
        dt = time.perf_counter() - t0
        self.avg[mode] = dt if n < 3 else 0.7 * self.avg[mode] + 0.3 * dt

