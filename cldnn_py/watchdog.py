"""A watchdog for ``Network.run``: a run that takes longer than ``BuildOptions.watchdog_s`` (or
``CLDNN_PY_WATCHDOG_S``) seconds raises a DeviceError naming the primitive that has not finished, instead of
blocking forever on a hung kernel or driver. Off by default: it costs an event poll per millisecond of waiting on
an OpenCL device and a thread hand-off per run on the CPU engine.

- OpenCL: after ``execute()`` enqueued everything, the host polls the events of every primitive (in execution
  order) until all are complete or the deadline passes; then the first primitive whose events are not complete is
  named. A kernel cannot be stopped from the host: it keeps the device busy until it ends (or the driver's own
  watchdog, e.g. a GPU's TDR, resets it).
- CPU engine: kernels run on the calling thread, so the run moves to a worker thread and the caller waits for it
  with the deadline; the primitive whose kernel is running is named. The worker cannot be interrupted (a numba
  kernel holds no interpreter lock), so the Network is marked broken: later runs raise at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from .errors import DeviceError

POLL_S = 0.001


def _complete(event: Any) -> bool:
    """True when an OpenCL event (or a CPU engine's completed event, which has no status) is complete; an event in
    an error state raises DeviceError."""
    status = getattr(event, "command_execution_status", 0)
    if status < 0:
        raise DeviceError(f"a command failed on the device (OpenCL execution status {status})")
    return status == 0  # CL_COMPLETE


def wait_events(insts: Iterable[tuple[str, list[Any]]], timeout_s: float) -> None:
    """Wait until every event of ``insts`` ([(primitive id, events)] in execution order) is complete. Raises
    DeviceError naming the first primitive with an incomplete event after ``timeout_s`` seconds."""
    pending = [(pid, list(evs)) for pid, evs in insts]
    deadline = time.monotonic() + timeout_s
    while pending:
        pending = [(pid, [e for e in evs if not _complete(e)]) for pid, evs in pending]
        pending = [(pid, evs) for pid, evs in pending if evs]
        if not pending:
            return
        if time.monotonic() >= deadline:
            raise DeviceError(f"watchdog: primitive '{pending[0][0]}' did not finish within {timeout_s:g} s "
                              f"({len(pending)} primitive(s) still running or queued)")
        time.sleep(POLL_S)


class ThreadRun:
    """Runs ``fn`` in a daemon thread and waits for it at most ``timeout_s`` seconds (CPU engine watchdog).
    ``current`` is read on timeout to name the primitive that is running."""

    def __init__(self, fn: Callable[[], Any], timeout_s: float, current: Callable[[], str | None]) -> None:
        self.result: Any = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._target, args=(fn,), daemon=True, name="cldnn_py-watchdog-run")
        self.timeout_s = timeout_s
        self.current = current

    def _target(self, fn: Callable[[], Any]) -> None:
        try:
            self.result = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
            self.error = e

    def run(self) -> Any:
        """Start, wait; the result, the run's own exception, or DeviceError on timeout (the thread keeps running)."""
        self.thread.start()
        self.thread.join(self.timeout_s)
        if self.thread.is_alive():
            running = self.current()
            what = f"primitive '{running}' did not finish" if running else "the run did not reach its first primitive"
            raise DeviceError(f"watchdog: {what} within {self.timeout_s:g} s; this network is no longer usable (its "
                              f"kernel cannot be interrupted and still runs)")
        if self.error is not None:
            raise self.error
        return self.result
