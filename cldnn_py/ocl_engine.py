"""OclEngine: one OpenCL device with its context, command queue, allocation and kernel build.

Made by ``Engine()`` (the default device, see :mod:`cldnn_py.device`), ``Engine("cl:0:0")`` or ``OclEngine(...)``;
a sibling of :class:`~cldnn_py.cpu_engine.CpuEngine` under the abstract :class:`~cldnn_py.engine.Engine`. The
queue is out-of-order with profiling when the device allows it (every enqueue then carries an explicit wait list),
in-order with profiling otherwise. Programs are built with ``build()`` through the kernel binary cache; a failed
build raises KernelBuildError carrying the build log (tinygrad ``ops_cl.py`` keeps the log the same way). Only
this engine has ``context``, ``queue``, ``device`` and ``kernel_cache``; its kernels are ``ClKernelData``.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from . import env
from .device import DeviceInfo, describe, is_simulator, parallel_build_allowed, select_device
from .engine import Engine, clamp_lws
from .errors import DeviceError, KernelBuildError
from .kernel_cache import KernelCache, configure_pocl_cache, driver_caches
from .layout import Layout
from .memory import Memory

if TYPE_CHECKING:
    from kernel_selector.kernel_base import BaseKernelData

log = logging.getLogger("cldnn_py.engine")


class OclEngine(Engine):
    """An OpenCL device ready to allocate, build and run (engine kind ``"ocl"``).

    Args:
        device: ``"cl:P:D"``, ``"cl:N"`` or None for the default OpenCL device.
        cache_dir: folder of the kernel binary cache (default ``CLDNN_PY_CACHE_DIR`` or the platformdirs user
            cache; ``CLDNN_PY_NO_CACHE=1`` turns it off). PoCL's own cache goes to ``<cache_dir>/pocl`` when this is
            the process's first Engine and ``POCL_CACHE_DIR`` is not set (PoCL reads it once, at start-up).
    Attributes:
        kind: ``"ocl"``. info: DeviceInfo. device, context, queue: the pyopencl objects.
        kernel_cache: the KernelCache programs are built through (``hits`` / ``misses`` counters).
    Raises:
        DeviceError: no OpenCL platform, or a bad spec.
    """

    kind = "ocl"

    def __init__(self, device: str | None = None, cache_dir: str | None = None) -> None:
        import pyopencl as cl

        configure_pocl_cache(cache_dir)  # before PoCL starts: its own cache under ours (kernel_cache docstring)
        self._cl = cl
        dev, spec = select_device(device)
        self.device = dev
        self.info: DeviceInfo = describe(dev, spec)
        self.context = cl.Context([dev])
        props: int = int(cl.command_queue_properties.PROFILING_ENABLE)
        if self.info.out_of_order:
            props |= int(cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
        self.queue = cl.CommandQueue(self.context, dev, properties=props)  # type: ignore[arg-type]
        self.lock = threading.RLock()
        self.kernel_cache: KernelCache = KernelCache.for_engine(cache_dir, self.info)
        if self.kernel_cache.enabled:
            self.kernel_cache.folder()  # checked now, so kernel_cache.directory names the folder in use
        log.debug("engine on %s (%s, %s), out_of_order=%s", self.info.name, self.info.platform,
                  self.info.platform_version, self.info.out_of_order)

    @property
    def build_threads(self) -> int:
        """One per core (clBuildProgram releases the GIL) on a driver known to build safely in parallel (PoCL's CPU
        device), 1 on any other (Oclgrind's compiler crashes when two builds run at once); ``CLDNN_PY_PARALLEL_BUILD``
        overrides (:func:`cldnn_py.device.parallel_build_allowed`)."""
        allowed = parallel_build_allowed(self.device.platform.name, self.device.name, env.parallel_build())
        return max(1, os.cpu_count() or 1) if allowed else 1

    @property
    def kernels_per_program(self) -> int:
        """Kernels per OpenCL program (compile_graph's batches). On a driver with a build cache of its own (PoCL:
        :func:`cldnn_py.kernel_cache.driver_caches`) 256, i.e. a network's kernels in one program: PoCL spends about
        45 ms per ``clBuildProgram`` even when its cache holds the build (a one-line kernel as much as sixteen large
        ones), so ResNet-50's warm start went 0.43-0.49 s → 0.33-0.35 s with one program instead of three, and its
        cold build was no slower (3.1-4.7 s against 3.8-5.1 s: the build of the whole starts after selection instead
        of overlapping it, but runs once). 16 elsewhere, where builds run in parallel and cost per kernel (2026-11-26,
        2-core Zen 4, pip PoCL 3.0)."""
        return 256 if driver_caches(self.info) else 16

    @property
    def default_build_options(self) -> list[str]:
        """Options added to every build: ``-cl-opt-disable`` on a simulator whose uninitialized-value checker is on
        (``OCLGRIND_UNINITIALIZED=1``), because Oclgrind 21.10's checker stops with "Unsupported instruction: freeze"
        on the ``freeze`` instructions that clang's optimizer emits; then ``CLDNN_PY_CL_OPTIONS`` (read at every
        build, so a test can change it between builds; ValueError for an option outside -cl-*/-D*/-w)."""
        opts: list[str] = []
        if is_simulator(self.device) and os.environ.get("OCLGRIND_UNINITIALIZED", "") not in ("", "0"):
            opts.append("-cl-opt-disable")
        return opts + [o for o in env.cl_options() if o not in opts]

    @property
    def root(self) -> OclEngine:
        """The engine this one is a :meth:`stream` of, else itself."""
        return self.__dict__.get("_root", self)

    def stream(self) -> OclEngine:
        """A twin of this engine with its own command queue (same properties: profiling, out-of-order where the
        device allows it) on the same context: ``allocate``, ``enqueue_*``, ``finish`` of the twin use that queue;
        the context, kernel cache, build lock and device info are shared. Everything enqueued on this engine so far
        (constant uploads) completes first, so the twin's commands may read it. Raises pyopencl's errors when the
        driver refuses another queue."""
        cl = self._cl
        self.queue.finish()
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.queue = cl.CommandQueue(self.context, self.device, properties=self.queue.properties)
        twin.__dict__["_root"] = self.root
        log.debug("stream: a second command queue on %s", self.info.name)
        return twin

    def __reduce__(self) -> Any:
        raise TypeError("a cldnn_py Engine holds live OpenCL objects and cannot be pickled; "
                        "pass the device spec string (e.g. 'cl:0:0') and build a new Engine instead")

    # ----- memory ------------------------------------------------------------------------------------------------
    def allocate(self, layout: Layout, owner: str = "") -> Memory:
        """A zero-filled device buffer of ``layout.bytes`` bytes.

        Raises DeviceError naming ``owner`` (a primitive id) when the size exceeds the device's max allocation.
        """
        if layout.bytes > self.info.max_alloc_bytes:
            raise DeviceError(f"primitive '{owner}': buffer of {layout.bytes} bytes ({layout}) exceeds the device's "
                              f"max allocation of {self.info.max_alloc_bytes} bytes")
        return Memory(self, layout, self.allocate_buffer(layout.bytes, owner))

    def allocate_buffer(self, nbytes: int, owner: str = "") -> Any:
        """A zero-filled raw device buffer of ``nbytes`` bytes (a memory-pool slot shared by several tensors).

        Raises DeviceError naming ``owner`` when it exceeds the device's max allocation."""
        if nbytes > self.info.max_alloc_bytes:
            raise DeviceError(f"{owner}: buffer of {nbytes} bytes exceeds the device's max allocation of "
                              f"{self.info.max_alloc_bytes} bytes")
        cl = self._cl
        buf = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, size=max(nbytes, 4))
        cl.enqueue_fill_buffer(self.queue, buf, np.zeros(1, np.uint8), 0, max(nbytes, 4)).wait()
        return buf

    def upload(self, layout: Layout, physical: np.ndarray, owner: str = "") -> Memory:
        """A buffer created from ``physical`` (``layout.bytes`` bytes in the layout's physical order) in one step
        (``CL_MEM_COPY_HOST_PTR``: no zero fill, no second copy). Raises DeviceError naming ``owner`` when it
        exceeds the device's max allocation, ValueError for a size that is not ``layout.bytes``."""
        if physical.nbytes != layout.bytes:
            raise ValueError(f"upload '{owner}': expected {layout.bytes} bytes for {layout}, got {physical.nbytes}")
        if layout.bytes > self.info.max_alloc_bytes:
            raise DeviceError(f"primitive '{owner}': buffer of {layout.bytes} bytes ({layout}) exceeds the device's "
                              f"max allocation of {self.info.max_alloc_bytes} bytes")
        cl = self._cl
        host = np.ascontiguousarray(physical).reshape(-1).view(np.uint8)
        if host.size < 4:  # the smallest buffer allocate makes
            host = np.concatenate([host, np.zeros(4 - host.size, np.uint8)])
        buf = cl.Buffer(self.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
        return Memory(self, layout, buf)

    def write_buffer(self, buffer: Any, host: np.ndarray, wait_for: list[Any] | None = None,
                     blocking: bool = True) -> Any:
        """Copy host bytes into a buffer; returns the event."""
        return self._cl.enqueue_copy(self.queue, buffer, host, wait_for=wait_for, is_blocking=blocking)

    def read_buffer(self, buffer: Any, host: np.ndarray, wait_for: list[Any] | None = None) -> None:
        """Copy a buffer into host memory after ``wait_for``; blocks until done. It waits for the copy's own event:
        PoCL makes a blocking read wait for the whole queue (clFinish), other networks' commands included."""
        self._cl.enqueue_copy(self.queue, host, buffer, wait_for=wait_for, is_blocking=False).wait()

    def wrap_host(self, host: np.ndarray, probe: bool = True) -> Any | None:
        """A ``CL_MEM_USE_HOST_PTR`` buffer on ``host`` (C-contiguous writeable 1-D uint8, its start a multiple of
        ``host_alignment``) when the device shares host memory (``info.host_unified_memory``: PoCL's CPU device, an
        integrated GPU) and reads ``host``'s bytes themselves: one byte is flipped on the host and read back through
        the buffer, then restored (a driver that keeps a copy of its own, which the OpenCL specification allows, sees
        the old byte). None otherwise: the caller copies. ``probe=False`` skips the byte check for a caller that
        made it on an earlier array of the same kind (a loaded Program's constants: one blocking read each cost
        ~0.5 ms)."""
        cl = self._cl
        if (not self.info.host_unified_memory or host.ndim != 1 or host.dtype != np.uint8 or not host.size
                or not host.flags.c_contiguous or not host.flags.writeable or host.ctypes.data % self.host_alignment):
            return None
        try:
            buf = cl.Buffer(self.context, cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR, hostbuf=host)
        except (cl.RuntimeError, cl.LogicError) as e:  # a driver that refuses this host pointer
            log.debug("no CL_MEM_USE_HOST_PTR buffer on a %d-byte host array: %s", host.nbytes, e)
            return None
        if not probe:
            return buf
        old = int(host[0])
        seen = np.empty(1, np.uint8)
        host[0] = old ^ 0xFF
        try:
            cl.enqueue_copy(self.queue, seen, buf, is_blocking=True)
        finally:
            host[0] = old
        if int(seen[0]) != old ^ 0xFF:
            log.debug("%s keeps its own copy of a CL_MEM_USE_HOST_PTR buffer: copies instead", self.info.name)
            return None
        return buf

    def pinned_host(self, nbytes: int) -> tuple[np.ndarray, Any] | None:
        """On a device without host-unified memory: a ``CL_MEM_ALLOC_HOST_PTR`` buffer mapped once, its mapping as a
        uint8 array (page-locked on NVIDIA and AMD drivers: copies from it run by DMA) and the buffer; None on a
        host-unified device. The mapping stays for the buffer's life and the array is only ever a host pointer of
        ``enqueue_copy``, never a kernel argument, as NVIDIA's OpenCL guide recommends for pinned staging."""
        if self.info.host_unified_memory:
            return None
        cl = self._cl
        size = max(nbytes, 4)
        buf = cl.Buffer(self.context, cl.mem_flags.READ_WRITE | cl.mem_flags.ALLOC_HOST_PTR, size=size)
        host, _ = cl.enqueue_map_buffer(self.queue, buf, cl.map_flags.READ | cl.map_flags.WRITE, 0, (size,), np.uint8,
                                        is_blocking=True)
        host[:] = 0
        return host[:nbytes], buf

    # ----- stream ------------------------------------------------------------------------------------------------
    def bind_kernel(self, kernel: BaseKernelData, args: list[Any], program: Any = None) -> Any:
        """A ``pyopencl.Kernel`` for ``kernel.entry`` of ``program`` (built from ``common_header() +
        kernel.source`` when None) with ``args`` set (buffers, np.int32 / np.float32 scalars). Raises DeviceError
        for a CPU kernel, KernelBuildError when the build fails."""
        from kernel_selector.kernel_base import ClKernelData, common_header  # lazy: it imports cldnn_py.layout

        if not isinstance(kernel, ClKernelData):
            raise DeviceError(f"kernel '{kernel.entry}' is not an OpenCL kernel (a CPU kernel on the OpenCL engine)")
        if program is None:
            program = self.build(common_header() + kernel.source)
        k = self._cl.Kernel(program, kernel.entry)
        k.set_args(*args)
        return k

    def clamp_lws(self, kernel: Any, gws: tuple[int, ...], lws: tuple[int, ...] | None) -> tuple[int, ...] | None:
        """``lws`` reduced to what the device and this compiled kernel allow (CL_KERNEL_WORK_GROUP_SIZE): the
        largest dimension is cut to its next smaller divisor of gws until the product fits."""
        if lws is None:
            return None
        limit = min(self.info.max_work_group_size,
                    int(kernel.get_work_group_info(self._cl.kernel_work_group_info.WORK_GROUP_SIZE, self.device)))
        return clamp_lws(gws, lws, limit)

    def enqueue_kernel(self, kernel: Any, gws: tuple[int, ...], lws: tuple[int, ...] | None,
                       wait_for: list[Any] | None = None) -> Any:
        """Enqueue a bound kernel after ``wait_for``; returns its event (``wait()``, ``profile.start/end`` in ns)."""
        return self._cl.enqueue_nd_range_kernel(self.queue, kernel, gws, lws, wait_for=wait_for or None)

    def enqueue_zero(self, buffer: Any, nbytes: int, wait_for: list[Any] | None = None) -> Any:
        """Fill the first ``nbytes`` of a buffer with zeros after ``wait_for``; returns the event."""
        return self._cl.enqueue_fill_buffer(self.queue, buffer, np.zeros(1, np.float32), 0, nbytes,
                                            wait_for=wait_for or None)

    def enqueue_barrier(self) -> None:
        """Everything enqueued later starts after everything enqueued before."""
        self._cl.enqueue_barrier(self.queue)

    def enqueue_marker(self, events: list[Any]) -> Any:
        """One event complete when all ``events`` are."""
        return self._cl.enqueue_marker(self.queue, wait_for=events)

    def flush(self) -> None:
        """Submit what was enqueued (no wait)."""
        self.queue.flush()

    def finish(self) -> None:
        """Wait until everything enqueued has completed (``clFinish``)."""
        self.queue.finish()

    # ----- kernels -----------------------------------------------------------------------------------------------
    def build(self, source: str, options: list[str] | None = None) -> Any:
        """Build OpenCL C ``source`` into a ``pyopencl.Program``, from the kernel binary cache when it holds it
        (:mod:`cldnn_py.kernel_cache`; a binary the driver rejects is dropped and rebuilt from source).

        Raises KernelBuildError with the compiler's build log on failure.
        """
        cl = self._cl
        opts = self.default_build_options + list(options or [])
        cache = self.kernel_cache.active  # False on PoCL: its own cache keeps the builds (kernel_cache docstring)
        key = self.kernel_cache.key(source, opts, self.info) if cache else ""
        binary = self.kernel_cache.load(key) if cache else None
        if binary is not None:
            try:
                return cl.Program(self.context, [self.device], [binary]).build(options=opts)
            except (cl.RuntimeError, cl.LogicError) as e:
                log.warning("cached binary %s rejected by the driver (%s); rebuilding", key[:12], e)
                self.kernel_cache.discard(key)
        prg = cl.Program(self.context, source)
        try:
            built = prg.build(options=opts)
        except (cl.RuntimeError, cl.LogicError) as e:  # build failure, invalid source
            try:
                logs = prg.get_build_info(self.device, cl.program_build_info.LOG)
            except Exception:  # noqa: BLE001 - the log is a courtesy
                logs = ""
            raise KernelBuildError(f"OpenCL build failed: {e}", build_log=str(logs or e)) from None
        if cache:
            try:
                self.kernel_cache.store(key, bytes(built.get_info(cl.program_info.BINARIES)[0]))
            except (cl.RuntimeError, cl.LogicError) as e:  # a driver without binaries: nothing to cache
                log.debug("no program binary to cache: %s", e)
        return built

    @property
    def binary_cache_hits(self) -> int:
        """Programs ``build`` has loaded from the kernel binary cache so far (``kernel_cache.hits``)."""
        return self.kernel_cache.hits
