"""Device discovery and selection: ``list_devices()`` and the ``cl:P:D`` device spec.

Specs: ``"cl:P:D"`` (platform P, device D), ``"cl:N"`` (N-th device over all platforms), ``None`` (then
``CLDNN_PY_DEVICE``, then ``PYOPENCL_CTX`` as pyopencl reads it, then the first device, in platform order, that
builds a one-line probe kernel (:func:`build_problem`), GPUs first, simulators such as Oclgrind last, else the
first device;
PoCL from ``pocl-binary-distribution`` is always there). Never prompts.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from typing import Any

from kernel_selector.device_caps import DeviceCaps

from . import env
from .cpu_pinning import configure_cpu_pinning
from .errors import DeviceError
from .kernel_cache import configure_pocl_cache

NO_PLATFORM_HELP = (
    "no OpenCL platform found. Install the embedded PoCL CPU driver with `pip install pocl-binary-distribution` "
    "(a dependency of cldnn_py) or a system OpenCL ICD for your device; Engine('cpu') (--device cpu) runs without "
    "OpenCL."
)


@dataclass(frozen=True)
class DeviceInfo:
    """What the engine needs to know about a device: names, versions and limits (bytes, work-items); ``caps``: the
    capabilities kernels validate on (:class:`kernel_selector.device_caps.DeviceCaps`).

    ``host_unified_memory``: the device works on host memory (a CPU device, an integrated GPU:
    ``CL_DEVICE_HOST_UNIFIED_MEMORY``), so a buffer can live in a user's array (``Network.set_input_memory``);
    ``mem_base_addr_align``: the alignment in bytes a buffer's start needs on this device
    (``CL_DEVICE_MEM_BASE_ADDR_ALIGN``, which OpenCL gives in bits; 0 when unknown)."""

    spec: str
    name: str
    platform: str
    platform_version: str
    driver_version: str
    max_alloc_bytes: int
    global_mem_bytes: int
    max_work_group_size: int
    compute_units: int
    supports_fp16: bool
    out_of_order: bool
    caps: DeviceCaps = field(default_factory=DeviceCaps)
    host_unified_memory: bool = False
    mem_base_addr_align: int = 0


def _cl() -> Any:
    import pyopencl as cl

    return cl


def _platforms() -> list[Any]:
    configure_pocl_cache()  # PoCL reads POCL_CACHE_DIR and POCL_AFFINITY when its platform starts: the first query
    configure_cpu_pinning()
    cl = _cl()
    try:
        return list(cl.get_platforms())
    except cl.LogicError:  # CL_PLATFORM_NOT_FOUND_KHR
        return []


def describe(device: Any, spec: str) -> DeviceInfo:
    """DeviceInfo of a ``pyopencl.Device``, its capabilities included."""
    cl = _cl()
    plat = device.platform
    qp = device.queue_properties
    return DeviceInfo(
        spec=spec, name=device.name.strip(), platform=plat.name.strip(), platform_version=plat.version.strip(),
        driver_version=device.driver_version.strip(), max_alloc_bytes=int(device.max_mem_alloc_size),
        global_mem_bytes=int(device.global_mem_size), max_work_group_size=int(device.max_work_group_size),
        compute_units=int(device.max_compute_units), supports_fp16="cl_khr_fp16" in device.extensions,
        out_of_order=bool(qp & cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE),
        caps=device_caps(device), host_unified_memory=bool(_query(device, "host_unified_memory", False)),
        mem_base_addr_align=int(_query(device, "mem_base_addr_align", 0)) // 8,
    )


def _query(device: Any, name: str, default: Any) -> Any:
    try:
        return getattr(device, name)
    except Exception:  # noqa: BLE001 - a driver that does not answer a query (pyopencl raises LogicError and kin)
        return default


def device_caps(device: Any) -> DeviceCaps:
    """The :class:`DeviceCaps` of a ``pyopencl.Device`` (queries a driver does not answer keep their defaults)."""
    cl = _cl()
    ext = set(str(_query(device, "extensions", "")).split())
    dtype = int(_query(device, "type", cl.device_type.CPU))
    kind = "gpu" if dtype & cl.device_type.GPU else "accelerator" if dtype & cl.device_type.ACCELERATOR else "cpu"
    sizes: tuple[int, ...] = ()
    if "cl_intel_required_subgroup_size" in ext:
        sizes = tuple(int(s) for s in _query(device, "sub_group_sizes_intel", ()) or ())
    return DeviceCaps(
        device_type=kind, vendor=str(_query(device, "vendor", "")).strip(), name=str(device.name).strip(),
        compute_units=int(_query(device, "max_compute_units", 1)),
        max_work_group_size=int(_query(device, "max_work_group_size", 1)),
        max_work_item_sizes=tuple(int(s) for s in _query(device, "max_work_item_sizes", (1, 1, 1))),
        local_mem_bytes=int(_query(device, "local_mem_size", 0)),
        local_mem_dedicated=int(_query(device, "local_mem_type", 0)) == int(cl.device_local_mem_type.LOCAL),
        preferred_vector_width_float=int(_query(device, "preferred_vector_width_float", 1)),
        native_vector_width_float=int(_query(device, "native_vector_width_float", 1)),
        subgroups="cl_khr_subgroups" in ext, intel_subgroups="cl_intel_subgroups" in ext, subgroup_sizes=sizes,
        fp16="cl_khr_fp16" in ext, image_support=bool(_query(device, "image_support", False)),
        global_mem_bytes=int(_query(device, "global_mem_size", 0)),
        global_cache_bytes=int(_query(device, "global_mem_cache_size", 0)),
        simulator=is_simulator(device),
    )


def list_devices() -> list[DeviceInfo]:
    """Every OpenCL device of every platform, with its ``cl:P:D`` spec. Empty when there is no platform."""
    out = []
    for p, plat in enumerate(_platforms()):
        for d, dev in enumerate(plat.get_devices()):
            out.append(describe(dev, f"cl:{p}:{d}"))
    return out


def select_device(spec: str | None) -> tuple[Any, str]:
    """Resolve a device spec to (``pyopencl.Device``, canonical ``cl:P:D`` spec).

    Raises DeviceError for a malformed spec, an index out of range, or no OpenCL platform at all.
    """
    spec = spec if spec is not None else env.device()
    if spec is None and os.environ.get("PYOPENCL_CTX"):
        spec = "cl:" + os.environ["PYOPENCL_CTX"]
    plats = _platforms()
    if not plats:
        raise DeviceError(NO_PLATFORM_HELP)
    table = [(p, d, dev) for p, plat in enumerate(plats) for d, dev in enumerate(plat.get_devices())]
    if not table:
        raise DeviceError(NO_PLATFORM_HELP)
    if spec is None or spec in ("cl", "gpu", "opencl"):
        # GPUs first, then the other devices, simulators last (Oclgrind runs kernels ~1000x slower); of those the
        # first, in platform order, that builds a probe kernel
        ranked = sorted(table, key=lambda t: (is_simulator(t[2]), not _is_gpu(t[2])))
        p, d, dev = next(((p, d, dev) for p, d, dev in ranked if build_problem(p, d) is None), ranked[0])
        return dev, f"cl:{p}:{d}"
    parts = spec.split(":")
    try:
        if parts[0] != "cl" or not 2 <= len(parts) <= 3:
            raise ValueError
        nums = [int(x) if x != "" else 0 for x in parts[1:]]
    except ValueError:
        raise DeviceError(f"bad device spec {spec!r}: expected 'cl:P:D' or 'cl:N'") from None
    if len(nums) == 1:
        if not 0 <= nums[0] < len(table):
            raise DeviceError(f"device spec {spec!r}: expected index 0..{len(table) - 1}, got {nums[0]}")
        p, d, dev = table[nums[0]]
        return dev, f"cl:{p}:{d}"
    p, d = nums
    if not 0 <= p < len(plats):
        raise DeviceError(f"device spec {spec!r}: expected platform 0..{len(plats) - 1}, got {p}")
    devs = plats[p].get_devices()
    if not 0 <= d < len(devs):
        raise DeviceError(f"device spec {spec!r}: platform {p} has devices 0..{len(devs) - 1}, got {d}")
    return devs[d], f"cl:{p}:{d}"


def _is_gpu(device: Any) -> bool:
    return bool(int(_query(device, "type", 0)) & int(_cl().device_type.GPU))


def is_simulator(device: Any) -> bool:
    """True for a simulated device (Oclgrind, identified by its platform name: it reports every device type)."""
    return "oclgrind" in device.platform.name.lower()


PARALLEL_BUILD_SAFE_DEVICES = ("pthread", "cpu")
"""Device-name prefixes, on PoCL's platform, whose ``clBuildProgram`` is known to run safely in several threads at
once: PoCL's CPU device (``pthread-<cpu>``; the driver is named ``cpu`` since PoCL 4, pocl#1164). Measured here:
the pip PoCL 3.0 builds ResNet-50's programs in parallel threads without fault, while Oclgrind's compiler crashes
the process when two builds run at once."""


def parallel_build_allowed(platform: str, device: str, knob: str = "auto") -> bool:
    """Whether programs may be built in several threads at once (compile_graph builds its batches in parallel).

    A pure function of names, so it can be tested without the device. Args:
        platform: the OpenCL platform name (``Portable Computing Language``, ``Oclgrind``, ``NVIDIA CUDA`` ...).
        device: the device name (``pthread-AMD EPYC``).
        knob: ``CLDNN_PY_PARALLEL_BUILD`` (:func:`cldnn_py.env.parallel_build`): ``1`` (or true/yes/on) always,
            ``0`` (or false/no/off) never, anything else (``auto``, the default) only on a driver known to be safe:
            PoCL's CPU device (:data:`PARALLEL_BUILD_SAFE_DEVICES`). Unknown drivers, Oclgrind among them, build in
            one thread: a parallel ``clBuildProgram`` crashes the process on Oclgrind (measured), and OpenCL's promise
            of thread-safe API calls is not one every driver's compiler keeps.
    """
    v = knob.strip().lower()
    if v in ("1", "true", "yes", "on"):
        return True
    if v in ("0", "false", "no", "off"):
        return False
    return "portable computing language" in platform.lower() and \
        device.strip().lower().startswith(PARALLEL_BUILD_SAFE_DEVICES)


PROBE_KERNEL = "__kernel void cldnn_py_probe(__global float* a) { a[get_global_id(0)] += 1.0f; }"


@functools.cache
def build_problem(platform: int, device: int) -> str | None:
    """Why device ``cl:platform:device`` cannot build a one-line kernel (the first line of its build log), or None
    when it can. Cached per process. A driver whose compiler does not know the host CPU fails here: the pip PoCL
    3.0 (LLVM 14) on an AMD Zen 5 says "unknown target CPU 'generic'", and the default device skips it."""
    cl = _cl()
    dev = _platforms()[platform].get_devices()[device]
    try:
        cl.Program(cl.Context([dev]), PROBE_KERNEL).build()
    except cl.Error as err:  # RuntimeError (build failure) and LogicError alike
        lines = [ln.strip() for ln in str(err).splitlines() if ln.strip()]
        return next((ln for ln in lines if "error" in ln.lower() and ":" in ln and "clBuildProgram" not in ln),
                    lines[0] if lines else type(err).__name__)
    return None


def default_choice() -> tuple[str, str]:
    """(spec, reason) of the device ``Engine()`` picks with no argument; raises DeviceError without a platform."""
    _, spec = select_device(None)
    if env.device():
        return spec, f"CLDNN_PY_DEVICE={env.device()}"
    if os.environ.get("PYOPENCL_CTX"):
        return spec, f"PYOPENCL_CTX={os.environ['PYOPENCL_CTX']}"
    return spec, ("the first device that builds a probe kernel: GPUs first, then CPUs, simulators last (set "
                  "CLDNN_PY_DEVICE=cl:P:D to choose another)")
