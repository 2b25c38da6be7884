"""DeviceCaps: what a kernel may ask of the device it is compiled for (clDNN's ``EngineInfo``).

Queried once per device (``cldnn_py.device.describe``) from ``clGetDeviceInfo``; a kernel's ``validate()`` and
``priority()`` read them from ``params.caps`` (a work-group tile must fit ``local_mem_bytes``, a sub-group kernel
needs ``intel_subgroups`` and its size in ``subgroup_sizes``). This module imports nothing of the package, so the
runtime can import it while describing a device.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DeviceCaps:
    """Device capabilities (sizes in bytes, work-group sizes in work-items).

    device_type: ``"cpu"``, ``"gpu"`` or ``"accelerator"`` (CL_DEVICE_TYPE); vendor, name: the driver's strings;
    compute_units; max_work_group_size and max_work_item_sizes (x, y, z); local_mem_bytes and local_mem_dedicated
    (CL_LOCAL: on-chip; CL_GLOBAL: emulated in global memory, as on Mali and CPU drivers); preferred / native
    float vector widths; subgroups (``cl_khr_subgroups``), intel_subgroups (``cl_intel_subgroups``) and
    subgroup_sizes (``cl_intel_required_subgroup_size``: the sizes offered); fp16 (``cl_khr_fp16``); image_support;
    global_mem_bytes and global_cache_bytes; simulator (Oclgrind: it reports itself as a GPU); subgroup_emulation:
    sub-group kernels run with their collectives emulated in ``__local`` memory (``BuildOptions(emulate_subgroups=
    True)``, for testing them on a device without sub-groups; never faster than the work-group kernels).
    """

    device_type: str = "cpu"
    vendor: str = ""
    name: str = ""
    compute_units: int = 1
    max_work_group_size: int = 1024
    max_work_item_sizes: tuple[int, ...] = (1024, 1024, 1024)
    local_mem_bytes: int = 0
    local_mem_dedicated: bool = False
    preferred_vector_width_float: int = 1
    native_vector_width_float: int = 1
    subgroups: bool = False
    intel_subgroups: bool = False
    subgroup_sizes: tuple[int, ...] = ()
    fp16: bool = False
    image_support: bool = False
    global_mem_bytes: int = 0
    global_cache_bytes: int = 0
    simulator: bool = False
    subgroup_emulation: bool = False

    @property
    def native_subgroups(self) -> bool:
        """True when the device offers sub-group collectives (``cl_khr_subgroups`` or ``cl_intel_subgroups``)."""
        return self.subgroups or self.intel_subgroups

    def subgroup_reason(self) -> str | None:
        """Why a sub-group kernel cannot run here (no ``cl_khr_subgroups`` nor ``cl_intel_subgroups``, and no
        emulation asked for), or None."""
        if self.native_subgroups or self.subgroup_emulation:
            return None
        return ("device offers no sub-groups (cl_khr_subgroups or cl_intel_subgroups); "
                "BuildOptions(emulate_subgroups=True) emulates them for tests")

    @property
    def is_gpu(self) -> bool:
        """True for a GPU (a simulator that reports itself as one included)."""
        return self.device_type == "gpu"

    def default_tier(self) -> str:
        """The kernel tier for this device when the build does not name one: ``"gpu"`` for a GPU (kernels with
        work-groups, ``__local`` tiles), ``"cpu"`` otherwise (register-tiled kernels with work-groups of one)."""
        return "gpu" if self.is_gpu else "cpu"


GPU_LIKE = DeviceCaps(device_type="gpu", vendor="generic", name="described GPU", compute_units=32,
                      max_work_group_size=1024, local_mem_bytes=48 * 1024, local_mem_dedicated=True,
                      preferred_vector_width_float=1, native_vector_width_float=1,
                      global_mem_bytes=8 << 30, global_cache_bytes=4 << 20)
"""A described GPU (NVIDIA-like limits: 48 KiB local memory, work-groups of 1024), for selecting and testing the
GPU tier without one."""


def vector_width(device: Any) -> int:
    """The native float vector width of a DeviceInfo (``device.caps.native_vector_width_float``; 1 when it has no
    caps). The device keys of the tuning cache, the kernel binary cache and saved Programs include it: one PoCL
    build reports 8 on a VM that hides AVX-512 and 16 on one that shows it, under the same name and versions."""
    return int(getattr(getattr(device, "caps", None), "native_vector_width_float", 1))
