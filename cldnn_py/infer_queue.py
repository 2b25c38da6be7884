"""Serving many inferences at once: ``InferRequest`` and ``AsyncInferQueue``, after OpenVINO's classes of those names.

A Network holds one set of activations, so it runs one inference at a time. An :class:`InferRequest` is one Network
over a shared Program (its own activations; the Program's constants and compiled kernels are shared, see
``Network.__init__``), and an :class:`AsyncInferQueue` keeps ``jobs`` of them busy::

    queue = cl.AsyncInferQueue(program, jobs=2)
    queue.set_callback(lambda request, userdata: results.__setitem__(userdata, request.results["prob"]))
    for i, image in enumerate(images):
        queue.start_async({"data": image}, userdata=i)   # blocks only while every request is busy
    queue.wait_all()                                      # raises the first error of a run or a callback

On a CPU OpenCL device every request's kernels go to the engine's one (out-of-order) queue, each execution waiting
only for its own network's previous one, so the device runs several requests at once (on PoCL, one request's kernels
fill the cores the other's leave idle at each kernel's end, and the host enqueues one while the device runs the
other). On a GPU each request gets a command queue of its own (``streams``; NVIDIA's OpenCL runs a queue's kernels
one after another, so only separate queues let two requests' kernels share the GPU). On the CPU
engine each request runs on its own thread (the numba kernels of all requests still take turns; the Python between
them overlaps). Callbacks run on the request's worker thread (:mod:`cldnn_py.async_run`), one at a time per
request; a request is idle again once its callback has returned.

Errors: a feed the network refuses raises from ``start_async`` at once. A run that fails on the device, or a callback
that raises, is logged at ERROR level (logger ``cldnn_py.async_run`` or ``cldnn_py.infer_queue``) and kept; the
request is idle again, ``InferRequest.wait()`` raises it, and ``AsyncInferQueue.wait_all()`` raises the first one
kept since the previous ``wait_all`` (the others are logged). OpenVINO's Python queue also raises a callback's
exception from ``wait_all``; unlike it, a failed run does not call the callback.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .async_run import AsyncRun
from .errors import CldnnError
from .network import Network
from .program import Program

log = logging.getLogger("cldnn_py.infer_queue")

Callback = Callable[["InferRequest", Any], Any]
"""``fn(request, userdata)``: called on the request's worker thread once its outputs are on the host."""

DEFAULT_JOBS = 2
"""Requests an ``AsyncInferQueue(jobs=0)`` makes: with two, the device runs one while the host enqueues the other
(MobileNetV3-style on the 2-core PoCL machine: 1.37x the images/s of one at a time, three not clearly better; ResNet-50
keeps both cores busy with one and gains nothing: docs/serving.md)."""


def streams_by_default(program: Program) -> bool:
    """Whether the requests of an AsyncInferQueue over ``program`` get command queues of their own when the caller
    does not say: on GPUs (their kernels then run side by side: ResNet-50 batch 1 on an H100, docs/serving.md), not
    on CPU devices (PoCL's out-of-order queue already runs two requests' kernels on its cores) or the CPU engine."""
    return program.engine.kind == "ocl" and program.engine.info.caps.device_type == "gpu"


def _network(source: Program | Network, stream: bool | None = None) -> Network:
    if isinstance(source, Program):
        return Network(source, stream=streams_by_default(source) if stream is None else stream)
    if type(source) is Network:
        return source
    if isinstance(source, Network):
        raise TypeError(f"an InferRequest needs a static Network or a Program, got a {type(source).__name__}: its "
                        "networks are built per input signature or stage (use its start_async, one run at a time)")
    raise TypeError(f"InferRequest(Program | Network), got {type(source).__name__}")


class InferRequest:
    """One inference slot: a Network of its own over a Program (OpenVINO's ``InferRequest``).

    Args:
        source: a Program (a new Network is built over it: its own activations, the Program's constants and
            kernels) or a static Network (used as it is).
        stream: for a Program, whether the new Network gets a command queue of its own (``Network(program,
            stream=True)``); None: :func:`streams_by_default`. Ignored for a Network.
    Attributes:
        network: the Network this request runs.
        userdata: the ``userdata`` of the last ``start_async`` (None before).
    Raises:
        TypeError: for a dynamic or partitioned network, or anything else than a Program / Network.
        DeviceError: from ``Network(program)`` when the activations do not fit the device.
    """

    def __init__(self, source: Program | Network, stream: bool | None = None) -> None:
        self.network = _network(source, stream)
        self.userdata: Any = None
        self._callback: Callback | None = None
        self._run: AsyncRun | None = None  # the last completed run (set on the worker, before the callback)
        self._busy = False
        self._state = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self._on_idle: Callable[[InferRequest, AsyncRun], None] | None = None  # the owning queue's hook

    def set_callback(self, callback: Callback | None) -> None:
        """Call ``callback(request, userdata)`` after each completed run (not after a failed one), on this request's
        worker thread; None removes it. An exception it raises is logged and re-raised by ``wait()``."""
        self._callback = callback

    def start_async(self, feeds: dict[str, np.ndarray] | None = None, userdata: Any = None) -> None:
        """Copy ``feeds`` ({input id: array}, as ``Network.run`` takes them; inputs not given keep their last value)
        to this request's inputs and start the inference; returns at once.

        Raises CldnnError when the request is busy (its last run or callback is not done: ``wait()`` first, or use
        an AsyncInferQueue, which starts idle requests only), and what ``Network.set_input_data`` raises for a bad
        feed (the request stays idle then)."""
        with self._state:
            if self._busy:
                raise CldnnError("InferRequest.start_async: the request is busy (its previous run or callback is not "
                                 "done); wait() for it first")
            self._busy = True
            self._idle.clear()
        try:
            self.userdata = userdata
            self.network.start_async(feeds or {}, callback=self._complete, userdata=userdata)
        except BaseException:
            with self._state:
                self._busy = False
                self._idle.set()
            raise

    def _complete(self, run: AsyncRun) -> None:
        """The Network's callback, on the worker: the user's callback, then idle (and the queue told)."""
        self._run = run
        try:
            if run.error is None and self._callback is not None:
                self._callback(self, run.userdata)
        except BaseException as e:  # noqa: BLE001 - kept for wait() / wait_all(), and logged now
            run.callback_error = e
            log.error("callback %r raised %s: %s", self._callback, type(e).__name__, e, exc_info=e)
        finally:
            with self._state:
                self._busy = False
                self._idle.set()
            if self._on_idle is not None:
                self._on_idle(self, run)

    def infer(self, feeds: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
        """``start_async(feeds)``, ``wait()``, and the outputs (OpenVINO's synchronous ``infer``)."""
        self.start_async(feeds)
        self.wait()
        return self.results

    def wait(self) -> None:
        """Block until the last run and its callback are done; raises the run's or the callback's exception."""
        self.wait_for(None)

    def wait_for(self, timeout: float | None) -> bool:
        """``wait()`` for at most ``timeout`` seconds (None: no limit); True when done, False on timeout (OpenVINO's
        ``wait_for``, in seconds here). Raises as ``wait()``."""
        if not self._idle.wait(timeout):
            return False
        run = self._run
        if run is not None and run.error is not None:
            raise run.error
        if run is not None and run.callback_error is not None:
            raise run.callback_error
        return True

    @property
    def busy(self) -> bool:
        """True from ``start_async`` until the run's callback has returned."""
        return self._busy

    @property
    def results(self) -> dict[str, np.ndarray]:
        """{output id: array} of the last completed run (the arrays are the run's own). Raises CldnnError before any
        run has completed, and the run's exception when it failed."""
        run = self._run
        if run is None or not run._read.is_set():
            raise CldnnError("InferRequest.results: no run has completed yet (start_async, then wait)")
        if run.error is not None:
            raise run.error
        assert run.outputs is not None
        return run.outputs

    @property
    def latency(self) -> float:
        """Milliseconds from ``start_async`` to the outputs on the host, of the last completed run (0.0 before)."""
        run = self._run
        return 0.0 if run is None or run.latency_ms is None else run.latency_ms

    def __repr__(self) -> str:
        return f"InferRequest({'busy' if self._busy else 'idle'}, userdata={self.userdata!r})"


class AsyncInferQueue:
    """A pool of ``jobs`` InferRequests over one Program, kept busy (OpenVINO's ``AsyncInferQueue``).

    Args:
        source: a Program (``jobs`` Networks are built over it) or a static Network (it becomes request 0; the
            others are built over its Program).
        jobs: the number of requests, i.e. inferences in flight at most; 0 takes :data:`DEFAULT_JOBS`.
        streams: whether each request built over the Program runs on a command queue of its own (OpenVINO's GPU
            throughput streams); None: :func:`streams_by_default` (GPUs yes, CPU devices no).
    Raises:
        ValueError: for ``jobs`` < 0. TypeError / DeviceError: as :class:`InferRequest`.

    ``len(queue)``, ``queue[i]`` and iteration give the requests; ``userdata`` the last userdata of each.
    """

    def __init__(self, source: Program | Network, jobs: int = 0, streams: bool | None = None) -> None:
        if jobs < 0:
            raise ValueError(f"AsyncInferQueue: jobs must be >= 0 (0: {DEFAULT_JOBS}), got {jobs}")
        jobs = jobs or DEFAULT_JOBS
        first = InferRequest(source, streams)
        self._requests = [first] + [InferRequest(first.network.program, streams) for _ in range(jobs - 1)]
        self._cond = threading.Condition()
        self._idle: collections.deque[int] = collections.deque(range(jobs))
        self._errors: list[BaseException] = []
        self._index = {id(r): i for i, r in enumerate(self._requests)}
        for r in self._requests:
            r._on_idle = self._release

    def set_callback(self, callback: Callback | None) -> None:
        """``callback(request, userdata)`` for every request (see ``InferRequest.set_callback``)."""
        for r in self._requests:
            r.set_callback(callback)

    def start_async(self, feeds: dict[str, np.ndarray] | None = None, userdata: Any = None) -> int:
        """Start an inference on the first idle request, waiting while every request is busy; returns its index.

        Raises what ``InferRequest.start_async`` raises for a bad feed (the request goes back to the idle ones).
        Calling this from a callback while no other request can become idle would wait for ever (as OpenVINO's)."""
        with self._cond:
            i = self._idle_id(take=True)
        try:
            self._requests[i].start_async(feeds, userdata)
        except BaseException:
            with self._cond:
                self._idle.appendleft(i)
                self._cond.notify_all()
            raise
        return i

    def _idle_id(self, take: bool) -> int:
        """Under the condition: the idle request that has waited longest, waiting for one; removed when ``take``.
        A listed request that is busy was started directly (``queue[i].start_async``): it is skipped until done."""
        while True:
            for i in self._idle:
                if not self._requests[i].busy:
                    if take:
                        self._idle.remove(i)
                    return i
            self._cond.wait()

    def _release(self, request: InferRequest, run: AsyncRun) -> None:
        error = run.error or run.callback_error
        i = self._index[id(request)]
        with self._cond:
            if error is not None:
                self._errors.append(error)
            if i not in self._idle:  # a request started directly was never taken off the list
                self._idle.append(i)
            self._cond.notify_all()

    def wait_all(self) -> None:
        """Block until every request is idle (callbacks returned). Then raise the first error of a run or a
        callback kept since the previous ``wait_all`` (they were logged when they happened), and forget them."""
        with self._cond:
            while len(self._idle) < len(self._requests) or any(r.busy for r in self._requests):
                self._cond.wait()
            errors, self._errors = self._errors, []
        if errors:
            if len(errors) > 1:
                log.error("wait_all: %d errors since the last wait_all; raising the first", len(errors))
            raise errors[0]

    def is_ready(self) -> bool:
        """True when at least one request is idle (``start_async`` would not wait)."""
        with self._cond:
            return any(not self._requests[i].busy for i in self._idle)

    def get_idle_request_id(self) -> int:
        """The index of an idle request, waiting until there is one (it is not reserved: ``start_async`` picks the
        idle request that has waited longest)."""
        with self._cond:
            return self._idle_id(take=False)

    @property
    def userdata(self) -> list[Any]:
        """The last ``userdata`` of each request, in request order."""
        return [r.userdata for r in self._requests]

    def __len__(self) -> int:
        return len(self._requests)

    def __getitem__(self, i: int) -> InferRequest:
        return self._requests[i]

    def __iter__(self) -> Iterator[InferRequest]:
        return iter(self._requests)

    def __repr__(self) -> str:
        return f"AsyncInferQueue(jobs={len(self._requests)}, idle={len(self._idle)})"


def measure_throughput(source: Program | Network, feeds: dict[str, np.ndarray], requests: int = DEFAULT_JOBS,
                       niter: int | None = None, seconds: float | None = None,
                       streams: bool | None = None) -> dict[str, Any]:
    """Throughput with ``requests`` inferences in flight (``cldnn-py benchmark --mode throughput``).

    Builds an AsyncInferQueue of ``requests`` over ``source``, runs every request once (warm-up), then keeps the
    queue full for ``niter`` inferences or ``seconds`` seconds (10 inferences when neither is given). Returns
    {"requests", "completed", "seconds" (wall time of the timed part), "batch" (first dimension of the first feed),
    "images_per_s" (batch * completed / seconds), "latency_ms": {"min", "median", "p90", "max"} (per request, from
    start_async to the outputs on the host)}. ``streams``: as AsyncInferQueue's. Prints nothing; raises what the
    queue raises.
    """
    queue = AsyncInferQueue(source, jobs=requests, streams=streams)
    for _ in range(len(queue)):
        queue.start_async(feeds)
    queue.wait_all()
    latencies: list[float] = []
    queue.set_callback(lambda request, _: latencies.append(request.latency))  # list.append is atomic
    n = niter if niter else (None if seconds else 10)
    started = 0
    t0 = time.perf_counter()
    t_end = t0 + (seconds or 0.0)
    while (n is not None and started < n) or (n is None and time.perf_counter() < t_end):
        queue.start_async(feeds)
        started += 1
    queue.wait_all()
    elapsed = time.perf_counter() - t0
    if not latencies:
        raise ValueError(f"measure_throughput: nothing was timed (niter={niter}, seconds={seconds})")
    batch = int(next(iter(feeds.values())).shape[0]) if feeds and np.ndim(next(iter(feeds.values()))) else 1
    t = np.array(latencies)
    return {"requests": len(queue), "completed": started, "seconds": elapsed, "batch": batch,
            "images_per_s": batch * started / elapsed,
            "latency_ms": {"min": float(t.min()), "median": float(np.median(t)), "p90": float(np.percentile(t, 90)),
                           "max": float(t.max())}}
