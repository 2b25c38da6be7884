"""The CPU engine: the same Program and Network on host memory, with numba kernels instead of OpenCL ones.

``Engine("cpu")`` returns a :class:`CpuEngine` (kind ``"cpu"``): the kernel_selector then picks the kernels
registered for engine kind "cpu" (``kernel_selector/kernels/<prim>/<prim>_kernel_cpu_*.py``). Memory is host memory
(a 64-byte aligned ``numpy.uint8`` array per buffer) under the same Layout rules as device buffers, blocked formats
and padding included. The stream runs each kernel when it is enqueued: Network enqueues in dependency order, so
that is the dependency order; every call returns a completed :class:`CpuEvent` with ``wait()`` and
``profile.start`` / ``profile.end`` in ns (``time.perf_counter_ns``), the interface of ``pyopencl.Event``, so
Network and profiling code never branch on the engine.

``CpuEngine`` is a sibling of :class:`~cldnn_py.ocl_engine.OclEngine` under the abstract
:class:`~cldnn_py.engine.Engine` (no OpenCL context, queue, build or kernel cache). Its kernels are
``CpuKernelData``: ``fn``, a callable that receives the kernel's arguments (raw uint8 buffers, scalars) in ``args``
order; it knows its layouts from the Params it was made from (``kernel_selector/cpu_kernel_base.py``).
Threads: numba's ``prange`` uses ``numba.get_num_threads()`` (all cores by default, ``NUMBA_NUM_THREADS``) on
GNU OpenMP with a short spin (``kernel_selector.common.numba_cache``): a parallel region launches in ~2 us there
against 70-150 us on numba's ``workqueue`` layer, which the engine used while its convolutions called OpenBLAS
(OpenMP's default long spin then fought OpenBLAS's threads: ResNet-50 860 ms against 340 ms). The convolutions
now run numba's packed GEMM; OpenBLAS remains for fully connected layers and MatMul.
"""

from __future__ import annotations

import contextlib
import logging
import os
import platform
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .device import DeviceInfo
from .engine import Engine
from .errors import DeviceError
from .layout import Layout
from .memory import Memory

if TYPE_CHECKING:
    from kernel_selector.kernel_base import BaseKernelData

log = logging.getLogger("cldnn_py.cpu_engine")

ALIGN = 64
# CPU kernels run one at a time in a process: each already uses every core, and numba's workqueue layer (still
# chosen when the user asks for it) aborts when two threads run parallel regions at once.
_RUN_LOCK = threading.Lock()
_SCOPE = threading.local()  # .quiet: numpy's floating-point errors ignored for this thread's execution


@contextlib.contextmanager
def _quiet_numpy() -> Iterator[None]:
    """numpy's floating-point error state ``all="ignore"`` for one execution (IEEE results as on a device), entered
    once instead of around every kernel (``np.errstate`` costs ~1 us, 73 times a MobileNetV3-style run); nested uses
    keep the outer one."""
    if getattr(_SCOPE, "quiet", False):
        yield
        return
    with np.errstate(all="ignore"):
        _SCOPE.quiet = True
        try:
            yield
        finally:
            _SCOPE.quiet = False


@dataclass
class _Profile:
    start: int
    end: int


class CpuEvent:
    """A completed command: ``wait()`` returns at once; ``profile.start`` / ``profile.end`` in ns."""

    __slots__ = ("profile",)

    def __init__(self, start: int, end: int) -> None:
        self.profile = _Profile(start, end)

    def wait(self) -> None:
        """Nothing to wait for: the CPU stream runs each command when it is enqueued."""


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _total_memory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def cpu_device_info() -> DeviceInfo:
    """DeviceInfo of the host CPU as the "cpu" engine sees it (limits in bytes; numba's version as platform)."""
    try:
        import numba

        version = f"numba {numba.__version__}"
    except ImportError:
        version = "numba (not installed)"
    total = _total_memory()
    return DeviceInfo(spec="cpu", name=f"{_cpu_name()} (numba)", platform="cldnn_py cpu", platform_version=version,
                      driver_version=version, max_alloc_bytes=total // 2, global_mem_bytes=total,
                      max_work_group_size=1, compute_units=os.cpu_count() or 1, supports_fp16=False,
                      out_of_order=False, host_unified_memory=True, mem_base_addr_align=ALIGN)


def aligned_bytes(nbytes: int) -> np.ndarray:
    """A zero-filled uint8 array of ``nbytes`` (at least 4) whose data starts on a 64-byte boundary."""
    n = max(nbytes, 4)
    raw = np.zeros(n + ALIGN, np.uint8)
    off = (-raw.ctypes.data) % ALIGN
    return raw[off:off + n]


class CpuEngine(Engine):
    """The host CPU as an engine (kind ``"cpu"``): host buffers, a synchronous stream, numba kernels.

    Made by ``Engine("cpu")`` (or directly). Attributes as ``Engine``: ``kind``, ``info`` (DeviceInfo with spec
    ``"cpu"``), ``lock``; ``device`` is None.
    Raises DeviceError when numba is not installed, and, from ``allocate``, for a buffer larger
    than ``info.max_alloc_bytes`` (half the host memory).
    """

    kind = "cpu"

    def __init__(self, device: str | None = "cpu", cache_dir: str | None = None) -> None:
        from kernel_selector.common.numba_cache import configure_numba_cache

        configure_numba_cache()  # numba reads its cache folder and threading layer when first imported
        try:
            import numba  # noqa: F401
        except ImportError:
            raise DeviceError("the CPU engine needs numba: pip install numba scipy") from None
        self.info = cpu_device_info()
        self.lock = threading.RLock()
        self.device = None
        log.debug("cpu engine on %s", self.info.name)

    # ----- memory ------------------------------------------------------------------------------------------------
    def allocate(self, layout: Layout, owner: str = "") -> Memory:
        """A zero-filled host buffer of ``layout.bytes`` bytes; DeviceError naming ``owner`` when too large."""
        return Memory(self, layout, self.allocate_buffer(layout.bytes, owner or str(layout)))

    def allocate_buffer(self, nbytes: int, owner: str = "") -> Any:
        """A zero-filled raw host buffer (64-byte aligned uint8 array) of ``nbytes`` bytes."""
        if nbytes > self.info.max_alloc_bytes:
            raise DeviceError(f"primitive '{owner}': buffer of {nbytes} bytes exceeds the CPU engine's max "
                              f"allocation of {self.info.max_alloc_bytes} bytes (half the host memory)")
        return aligned_bytes(nbytes)

    def write_buffer(self, buffer: Any, host: np.ndarray, wait_for: list[Any] | None = None,
                     blocking: bool = True) -> CpuEvent:
        """Copy host bytes into a buffer now; returns a completed event."""
        t0 = time.perf_counter_ns()
        src = np.ascontiguousarray(host).reshape(-1).view(np.uint8)
        buffer[:src.size] = src
        return CpuEvent(t0, time.perf_counter_ns())

    def read_buffer(self, buffer: Any, host: np.ndarray, wait_for: list[Any] | None = None) -> None:
        """Copy a buffer's first ``host.nbytes`` bytes into ``host``."""
        host.reshape(-1).view(np.uint8)[:] = buffer[:host.nbytes]

    def wrap_host(self, host: np.ndarray, probe: bool = True) -> Any | None:
        """``host`` itself as a buffer (kernels take 1-D uint8 arrays) when it is a C-contiguous, writeable 1-D uint8
        array of at least 4 bytes whose start is a multiple of ``ALIGN`` (64); None otherwise."""
        ok = (host.ndim == 1 and host.dtype == np.uint8 and host.flags.c_contiguous and host.flags.writeable
              and host.nbytes >= 4 and host.ctypes.data % ALIGN == 0)
        return host if ok else None

    # ----- stream ------------------------------------------------------------------------------------------------
    def bind_kernel(self, kernel: BaseKernelData, args: list[Any], program: Any = None) -> Any:
        """The CPU kernel's callable ``kernel.fn`` with ``args`` bound (a zero-argument callable); ``program`` is
        unused. Raises DeviceError for an OpenCL kernel (``ClKernelData``)."""
        from kernel_selector.kernel_base import CpuKernelData  # lazy: kernel_selector imports cldnn_py.layout

        if not isinstance(kernel, CpuKernelData):
            raise DeviceError(f"kernel '{kernel.entry}' has no CPU implementation (an OpenCL kernel on the CPU "
                              "engine)")
        fn = kernel.fn
        bound = list(args)
        return lambda: fn(*bound)

    def clamp_lws(self, kernel: Any, gws: tuple[int, ...], lws: tuple[int, ...] | None) -> tuple[int, ...] | None:
        """CPU kernels have no work-groups: ``lws`` as given."""
        return lws

    def enqueue_kernel(self, kernel: Any, gws: tuple[int, ...], lws: tuple[int, ...] | None,
                       wait_for: list[Any] | None = None) -> CpuEvent:
        """Run a bound kernel now (its dependencies ran before it was enqueued); a completed event. Kernels of all
        CPU engines in the process run one at a time (each uses every core; numba's workqueue layer, if chosen, is not
        re-entrant across threads)."""
        if getattr(_SCOPE, "quiet", False):  # inside execution_scope: numpy's error state is set for the whole run
            with _RUN_LOCK:
                t0 = time.perf_counter_ns()
                kernel()
                return CpuEvent(t0, time.perf_counter_ns())
        with _RUN_LOCK, np.errstate(all="ignore"):  # IEEE results as on a device: NaN/Inf data warns nobody
            t0 = time.perf_counter_ns()
            kernel()
            return CpuEvent(t0, time.perf_counter_ns())

    def enqueue_zero(self, buffer: Any, nbytes: int, wait_for: list[Any] | None = None) -> CpuEvent:
        """Zero the first ``nbytes`` of a buffer now."""
        t0 = time.perf_counter_ns()
        buffer[:nbytes] = 0
        return CpuEvent(t0, time.perf_counter_ns())

    def enqueue_barrier(self) -> None:
        """Nothing to order: every command has completed when enqueued."""

    def enqueue_marker(self, events: list[Any]) -> CpuEvent:
        """A completed event (every event already is)."""
        t = time.perf_counter_ns()
        return CpuEvent(t, t)

    def execution_scope(self) -> Any:
        """For one Network execution: BLAS libraries on one thread
        (:func:`kernel_selector.common.cpu_blas_threads.single_threaded_blas`: their spinning worker threads would
        hold the cores the numba kernels run on), and numba's thread count changed only when a kernel needs the other
        mode (:func:`kernel_selector.common.cpu_launch.launch_scope`)."""
        from kernel_selector.common.cpu_blas_threads import single_threaded_blas  # lazy, as bind_kernel's import
        from kernel_selector.common.cpu_launch import launch_scope

        stack = contextlib.ExitStack()
        stack.enter_context(single_threaded_blas())
        stack.enter_context(launch_scope())
        stack.enter_context(_quiet_numpy())
        return stack

    def flush(self) -> None:
        """Nothing to submit."""

    def finish(self) -> None:
        """Nothing to wait for: every command has completed when enqueued."""
