"""Kernels, one file each, grouped by primitive: ``kernels/<prim>/<prim>_kernel_<variant>.py``.

Every module here is imported by ``selector._load_all`` so its ``@register`` runs; adding a kernel is adding a file.
"""

from ..common.numba_cache import configure_numba_cache

configure_numba_cache()  # before any CPU kernel module imports numba
