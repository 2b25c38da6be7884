"""Engine: the abstract device a Program is compiled for and a Network runs on (clDNN's engine / stream split).

``Engine(spec)`` makes the concrete engine for a device spec: :class:`~cldnn_py.ocl_engine.OclEngine` (an OpenCL
device: context, queue, program build and binary cache) or :class:`~cldnn_py.cpu_engine.CpuEngine` (the host CPU
with numba kernels). The two are siblings; everything Program, Network and the autotuner need goes through the
protocol declared here, so none of them branches on the engine:

- memory: ``allocate`` (a :class:`~cldnn_py.memory.Memory`), ``allocate_buffer`` (a raw buffer, a memory-pool slot),
  ``write_buffer`` / ``read_buffer`` (host copies; sizes in bytes);
- the stream (clDNN's ``stream``): ``bind_kernel`` (a kernel's data plus its resolved arguments → something
  enqueueable; :meth:`Engine.bind` resolves the ``Arg`` list first), ``clamp_lws``, ``enqueue_kernel`` (with a
  wait list → an event with ``wait()`` and ``profile.start`` / ``profile.end`` in ns), ``enqueue_zero``,
  ``enqueue_barrier``, ``enqueue_marker``, ``flush``, ``finish``, ``execution_scope``;
- program build, a hook only engines that compile device source fill: ``build`` (OpenCL C → program; the base
  raises DeviceError) and ``binary_cache_hits`` (programs loaded from the kernel binary cache so far; 0 on the base).

``Engine()`` takes the default device (``CLDNN_PY_DEVICE``, see :mod:`cldnn_py.device`), falling back to the CPU
engine with a warning when there is no OpenCL platform. An engine holds live device objects and refuses to pickle.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import CldnnError, DeviceError

if TYPE_CHECKING:
    from kernel_selector.kernel_base import Arg, BaseKernelData

    from .device import DeviceInfo
    from .layout import Layout
    from .memory import Memory

log = logging.getLogger("cldnn_py.engine")

BufferOf = Callable[[str, int], Any]
"""``buffer(kind, index)``: the buffer of argument ``("input", index)`` or ``("output", 0)``."""


def clamp_lws(gws: tuple[int, ...], lws: tuple[int, ...], limit: int) -> tuple[int, ...]:
    """``lws`` with product <= ``limit``: the largest dimension repeatedly becomes its next smaller divisor of the
    matching gws dimension (OpenCL 1.2 needs lws to divide gws). Raises ValueError if ``limit`` < 1."""
    if limit < 1:
        raise ValueError(f"work-group size limit must be >= 1, got {limit}")
    out = list(lws)
    while math.prod(out) > limit:
        i = max(range(len(out)), key=lambda d: out[d])
        out[i] = next(d for d in range(out[i] - 1, 0, -1) if gws[i] % d == 0)
    return tuple(out)


def resolve_args(args: list[Arg], buffer: BufferOf, owner: str = "") -> list[Any]:
    """The values a kernel is bound with, in ``args`` order: ``Arg("input", i)`` / ``Arg("output", 0)`` become
    ``buffer(kind, index)``, ``Arg("int", v)`` np.int32(v), ``Arg("float", v)`` np.float32(v). The one place kernel
    arguments are resolved (Network, the autotuner and the kernel test harnesses all come through here).

    Raises CldnnError naming ``owner`` (a primitive id) for an unknown argument kind."""
    out: list[Any] = []
    for a in args:
        if a.kind in ("input", "output"):
            out.append(buffer(a.kind, int(a.index)))
        elif a.kind == "int":
            out.append(np.int32(a.index))
        elif a.kind == "float":
            out.append(np.float32(a.index))
        else:
            raise CldnnError(f"primitive '{owner}': unknown kernel argument kind {a.kind!r}")
    return out


PROTOCOL = ("allocate", "allocate_buffer", "write_buffer", "read_buffer", "bind_kernel", "clamp_lws", "enqueue_kernel",
            "enqueue_zero", "enqueue_barrier", "enqueue_marker", "flush", "finish")
"""The methods every concrete engine implements (checked when the subclass is defined)."""

ENGINE_KINDS: dict[str, type[Engine]] = {}
"""{kind: concrete engine class}: each concrete engine registers itself when its class is defined, so this module
never imports its subclasses (``cldnn_py/__init__.py`` imports both, before anyone can call ``Engine(...)``)."""


class Engine:
    """A device ready to allocate, build and run; ``Engine(device, cache_dir)`` makes the concrete one.

    Abstract: a subclass must implement every method named in :data:`PROTOCOL` (TypeError at class definition
    otherwise). It is not an ``abc.ABC`` so that type checkers accept ``Engine(spec)``, which ``__new__`` turns
    into a concrete engine.

    Args:
        device: ``"cl:P:D"``, ``"cl:N"`` (an :class:`~cldnn_py.ocl_engine.OclEngine`), ``"cpu"`` (a
            :class:`~cldnn_py.cpu_engine.CpuEngine`) or None for the default device (``CLDNN_PY_DEVICE``; the CPU
            engine, with a warning, when there is no OpenCL platform).
        cache_dir: folder of the kernel binary cache of an OpenCL engine (see OclEngine); the CPU engine ignores it.
    Attributes:
        kind: ``"ocl"`` or ``"cpu"``, the engine kind the kernel_selector matches kernels on.
        info: DeviceInfo (name, platform version, limits in bytes).
        lock: an RLock for callers that share the engine between threads.
    Raises:
        DeviceError: no OpenCL platform for an OpenCL spec, a bad spec, or numba missing for the CPU engine.
    """

    kind: str = ""
    info: DeviceInfo

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        missing = [m for m in PROTOCOL if getattr(cls, m) is getattr(Engine, m)]
        if missing:
            raise TypeError(f"engine {cls.__name__} does not implement {missing}")
        if cls.kind:
            ENGINE_KINDS.setdefault(cls.kind, cls)

    def __new__(cls, device: str | None = None, cache_dir: str | None = None) -> Engine:
        """``Engine(...)`` picks the concrete class; ``OclEngine(...)`` / ``CpuEngine(...)`` make their own."""
        if cls is not Engine:
            return super().__new__(cls)
        from . import env
        from .device import _platforms
        from .kernel_cache import configure_pocl_cache

        cpu, ocl = ENGINE_KINDS["cpu"], ENGINE_KINDS["ocl"]

        spec = device if device is not None else env.device()
        if spec == "cpu":
            return super().__new__(cpu)
        configure_pocl_cache(cache_dir)  # before the first platform query starts PoCL
        if spec is None and not _platforms():
            log.warning("no OpenCL platform found: Engine() falls back to the CPU (numba) engine; install "
                        "pocl-binary-distribution or a system OpenCL ICD for OpenCL")
            return super().__new__(cpu)
        return super().__new__(ocl)

    def __repr__(self) -> str:
        return f"Engine({self.info.spec!r}: {self.info.name}, {self.info.platform_version})"

    def __reduce__(self) -> Any:
        raise TypeError(f"a cldnn_py Engine holds live device objects and cannot be pickled; pass the device spec "
                        f"string (e.g. {self.info.spec!r}) and build a new Engine instead")

    def _abstract(self, name: str) -> NotImplementedError:
        return NotImplementedError(f"{type(self).__name__}.{name}")

    # ----- memory ------------------------------------------------------------------------------------------------
    def allocate(self, layout: Layout, owner: str = "") -> Memory:
        """A zero-filled buffer of ``layout.bytes`` bytes as Memory. Raises DeviceError naming ``owner`` (a
        primitive id) when it exceeds ``info.max_alloc_bytes``."""
        raise self._abstract("allocate")

    def allocate_buffer(self, nbytes: int, owner: str = "") -> Any:
        """A zero-filled raw buffer of ``nbytes`` bytes (a memory-pool slot shared by several tensors). Raises
        DeviceError naming ``owner`` when it exceeds ``info.max_alloc_bytes``."""
        raise self._abstract("allocate_buffer")

    def upload(self, layout: Layout, physical: np.ndarray, owner: str = "") -> Memory:
        """A new buffer holding ``physical``: the tensor's bytes already in ``layout``'s physical order (padding,
        blocks; ``layout.bytes`` bytes, e.g. ``layout.to_physical(array)`` or a constant of a saved Program). An
        engine may do it in one step (OpenCL: ``CL_MEM_COPY_HOST_PTR``, no zero fill first). Raises DeviceError
        naming ``owner`` when the buffer exceeds the device's max allocation, ValueError for a size that is not
        ``layout.bytes``."""
        if physical.nbytes != layout.bytes:
            raise ValueError(f"upload '{owner}': expected {layout.bytes} bytes for {layout}, got {physical.nbytes}")
        mem = self.allocate(layout, owner)
        self.write_buffer(mem.buffer, physical)
        return mem

    def write_buffer(self, buffer: Any, host: np.ndarray, wait_for: list[Any] | None = None,
                     blocking: bool = True) -> Any:
        """Copy ``host``'s bytes into the start of ``buffer`` after ``wait_for``; returns the event."""
        raise self._abstract("write_buffer")

    def read_buffer(self, buffer: Any, host: np.ndarray, wait_for: list[Any] | None = None) -> None:
        """Copy the first ``host.nbytes`` bytes of ``buffer`` into ``host`` after ``wait_for``; blocks until done."""
        raise self._abstract("read_buffer")

    # ----- host memory as buffers (zero-copy I/O: Network.set_input_memory, docs/zero_copy.md) ----------------------
    @property
    def host_alignment(self) -> int:
        """Bytes a host array's start must be a multiple of for ``wrap_host`` to use it as a buffer: the device's
        ``info.mem_base_addr_align`` (CL_DEVICE_MEM_BASE_ADDR_ALIGN, in bytes), at least 64 (the kernels' widest
        aligned vector loads)."""
        return max(int(self.info.mem_base_addr_align), 64)

    def wrap_host(self, host: np.ndarray, probe: bool = True) -> Any | None:
        """A buffer whose storage is ``host``'s own memory (a C-contiguous, writeable 1-D uint8 array, its start a
        multiple of ``host_alignment``), so kernels read and write the caller's bytes with no copy; None where this
        device does not work on host memory or declined this array (then the caller copies). The caller keeps
        ``host`` alive and unchanged while commands use the buffer. The base returns None."""
        return None

    def pinned_host(self, nbytes: int) -> tuple[np.ndarray, Any] | None:
        """A zero-filled page-locked host array of ``nbytes`` uint8 and the object that keeps it (hold both while the
        array is used), for copies to a device that does not share host memory (a discrete GPU copies from it by DMA,
        without the driver's bounce buffer); None where that brings nothing (host-unified devices, the CPU engine).
        The base returns None."""
        return None

    # ----- command streams ----------------------------------------------------------------------------------------
    @property
    def root(self) -> Engine:
        """The engine this one is a stream of (:meth:`stream`), else itself: memory of one is memory of the other."""
        return self

    def stream(self) -> Engine:
        """This engine with a command queue of its own: the same device, context, kernels and caches, so buffers
        and events of the two mix, but commands of the two queues run independently (on a GPU, at the same time:
        NVIDIA's OpenCL runs one queue's kernels one after another, an out-of-order queue included; OpenVINO's GPU
        plugin likewise gives each throughput stream its own queue). The base returns ``self`` (one queue only)."""
        return self

    # ----- program build (engines that compile device source) ------------------------------------------------------
    def build(self, source: str, options: list[str] | None = None) -> Any:
        """Compile device source into a program ``bind_kernel`` takes. Only the OpenCL engine builds; the base
        raises DeviceError (CPU kernels are callables, compiled by numba at first use)."""
        raise DeviceError(f"the {self.kind} engine does not build OpenCL programs")

    @property
    def binary_cache_hits(self) -> int:
        """Programs ``build`` has loaded from a kernel binary cache so far (0: this engine has no such cache)."""
        return 0

    @property
    def build_threads(self) -> int:
        """How many ``build`` calls may run at once (compile_graph builds its program batches in that many threads;
        1 on the base)."""
        return 1

    @property
    def kernels_per_program(self) -> int:
        """How many kernels compile_graph puts in one ``build`` (one OpenCL program): smaller batches build in
        parallel (``build_threads``) and report progress more finely, larger ones pay a driver's per-program cost
        fewer times. 16 on the base."""
        return 16

    # ----- stream ------------------------------------------------------------------------------------------------
    def bind_kernel(self, kernel: BaseKernelData, args: list[Any], program: Any = None) -> Any:
        """An enqueueable kernel: ``kernel`` (this engine's kind of kernel data) with ``args`` (resolved: buffers,
        np.int32 / np.float32 scalars) set. ``program``: the built program holding ``kernel.entry`` (OpenCL; None
        builds the kernel's own source). Raises DeviceError for another engine's kind of kernel data,
        KernelBuildError when a build fails."""
        raise self._abstract("bind_kernel")

    def bind(self, kernel: BaseKernelData, buffer: BufferOf, program: Any = None, owner: str = "") -> Any:
        """``bind_kernel`` with the kernel's ``Arg`` list resolved by :func:`resolve_args` through ``buffer``."""
        return self.bind_kernel(kernel, resolve_args(kernel.args, buffer, owner), program)

    def clamp_lws(self, kernel: Any, gws: tuple[int, ...], lws: tuple[int, ...] | None) -> tuple[int, ...] | None:
        """``lws`` reduced to what the device and this bound kernel allow (None stays None)."""
        raise self._abstract("clamp_lws")

    def enqueue_kernel(self, kernel: Any, gws: tuple[int, ...], lws: tuple[int, ...] | None,
                       wait_for: list[Any] | None = None) -> Any:
        """Enqueue a bound kernel after ``wait_for``; returns its event (``wait()``, ``profile.start/end`` in ns)."""
        raise self._abstract("enqueue_kernel")

    def enqueue_zero(self, buffer: Any, nbytes: int, wait_for: list[Any] | None = None) -> Any:
        """Fill the first ``nbytes`` of a buffer with zeros after ``wait_for``; returns the event."""
        raise self._abstract("enqueue_zero")

    def enqueue_barrier(self) -> None:
        """Everything enqueued later starts after everything enqueued before."""
        raise self._abstract("enqueue_barrier")

    def enqueue_marker(self, events: list[Any]) -> Any:
        """One event complete when all ``events`` are."""
        raise self._abstract("enqueue_marker")

    def flush(self) -> None:
        """Submit what was enqueued (no wait)."""
        raise self._abstract("flush")

    def finish(self) -> None:
        """Wait until everything enqueued has completed."""
        raise self._abstract("finish")

    def execution_scope(self) -> Any:
        """A context manager around one Network execution's enqueues (nothing to set up for OpenCL or, as it
        stands, the CPU engine; the hook stays for engines that need per-execution state)."""
        return contextlib.nullcontext()
