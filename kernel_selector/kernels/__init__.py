"""Kernels, one file each, grouped by primitive: ``kernels/<prim>/<prim>_kernel_<variant>.py``.

Every module here is imported by ``selector._load_all`` so its ``@register`` runs; adding a kernel is adding a file.
The CPU engine's (numba) kernels and helpers are named ``<prim>_kernel_cpu_*`` / ``cpu_*``: an OpenCL engine never
imports them (``selector.is_cpu_module``).
"""

from ..common.numba_cache import configure_numba_cache

configure_numba_cache()  # before any CPU kernel module imports numba
