"""Asynchronous runs of a Network (``Network.start_async``): the future of one run and the thread that finishes it.

``Network.start_async(feeds)`` copies the inputs and enqueues the kernels on the caller's thread (OpenCL), or hands
the whole run to a thread (the CPU engine, whose stream runs each kernel when it is enqueued), and returns an
:class:`AsyncRun` at once. The network's :class:`RunWorker`, one thread per Network started on first use, then
waits for the outputs' events, reads the outputs to host arrays and calls the completion callback, one run after
the other in the order they were started. Why a thread and not ``pyopencl.Event.set_callback``: an OpenCL event
callback runs on the driver's own thread, where OpenCL forbids blocking calls such as the output read, and
Oclgrind completes commands on the enqueueing thread; a waiting thread behaves the same on every driver and on the
CPU engine. Callbacks therefore run on that worker thread, never while a Network's lock is held.

Errors are never dropped: a run that fails (a DeviceError from the driver, a watchdog timeout) is kept in
``AsyncRun.error``, an exception raised by the callback in ``AsyncRun.callback_error``; both are logged at ERROR
level on ``cldnn_py.async_run`` when they happen and re-raised by ``AsyncRun.wait()`` / ``result()`` (and by
``AsyncInferQueue.wait_all()``, :mod:`cldnn_py.infer_queue`). The design follows OpenVINO's ``InferRequest``
(``start_async``, ``wait``, a completion callback); this module is only the mechanism under it.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

log = logging.getLogger("cldnn_py.async_run")


class AsyncRun:
    """The future of one ``Network.start_async`` call.

    Attributes:
        userdata: the object given to ``start_async``, untouched (OpenVINO's ``userdata``).
        outputs: {output id: host array} once the outputs are read (None before, and when the run failed); the
            arrays belong to this run (a later run of the network does not change them).
        latency_ms: milliseconds from ``start_async`` to the outputs being on the host (None before).
        error: the run's exception (None when it succeeded).
        callback_error: the callback's exception (None when it returned, or when there was no callback).
    """

    def __init__(self, callback: Callable[[AsyncRun], Any] | None = None, userdata: Any = None) -> None:
        self.callback = callback
        self.userdata = userdata
        self.outputs: dict[str, np.ndarray] | None = None
        self.latency_ms: float | None = None
        self.error: BaseException | None = None
        self.callback_error: BaseException | None = None
        self._t0 = time.perf_counter()
        self._read = threading.Event()  # outputs on the host (or the run failed): the network may run again
        self._done = threading.Event()  # and the callback has returned

    def done(self) -> bool:
        """True once the outputs are read (or the run failed) and the callback has returned."""
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the run is done (callback included) or ``timeout`` seconds pass; True when done.

        Raises the run's exception (``error``), else the callback's (``callback_error``), when done with one."""
        if not self._done.wait(timeout):
            return False
        if self.error is not None:
            raise self.error
        if self.callback_error is not None:
            raise self.callback_error
        return True

    def result(self, timeout: float | None = None) -> dict[str, np.ndarray]:
        """``wait(timeout)``, then the outputs {id: array}. Raises TimeoutError when not done within ``timeout``
        seconds, and what ``wait`` raises."""
        if not self.wait(timeout):
            raise TimeoutError(f"the asynchronous run is not done after {timeout} s")
        assert self.outputs is not None  # no error: the outputs were read
        return self.outputs

    def _wait_read(self) -> None:
        self._read.wait()

    def _finish(self, work: Callable[[], dict[str, np.ndarray]]) -> None:
        """On the worker: ``work()`` (wait and read the outputs, or the whole run), then the callback."""
        try:
            self.outputs = work()
        except BaseException as e:  # noqa: BLE001 - kept for wait() / wait_all(), and logged now
            self.error = e
            log.error("asynchronous run failed: %s: %s", type(e).__name__, e, exc_info=e)
        self.latency_ms = (time.perf_counter() - self._t0) * 1e3
        self._read.set()
        if self.callback is not None:
            try:
                self.callback(self)
            except BaseException as e:  # noqa: BLE001 - same
                self.callback_error = e
                log.error("completion callback %r raised %s: %s", self.callback, type(e).__name__, e, exc_info=e)
        self._done.set()

    def __repr__(self) -> str:
        state = "failed" if self.error else "done" if self.done() else "running"
        return f"AsyncRun({state}, userdata={self.userdata!r})"


class RunWorker:
    """One thread that finishes an owner's asynchronous runs in the order they were submitted (FIFO).

    The thread is made on the first ``submit`` and ends when the owner (a Network) is garbage-collected, or at
    interpreter exit after the runs already submitted (``concurrent.futures`` joins its threads then)."""

    def __init__(self, owner: object, name: str) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._ident: int | None = None
        weakref.finalize(owner, self._pool.shutdown, wait=False)

    def on_worker(self) -> bool:
        """True when called on this worker's thread (from a completion callback)."""
        return threading.get_ident() == self._ident

    def submit(self, run: AsyncRun, work: Callable[[], dict[str, np.ndarray]]) -> None:
        """Finish ``run`` with ``work`` on the worker thread after the runs submitted before it."""
        self._pool.submit(self._job, run, work)

    def _job(self, run: AsyncRun, work: Callable[[], dict[str, np.ndarray]]) -> None:
        self._ident = threading.get_ident()
        run._finish(work)
