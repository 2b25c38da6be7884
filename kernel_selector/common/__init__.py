"""Helpers shared by several kernels (a kernel file holds one kernel; what two kernels need lives here).

Importing this package configures numba's cache folder first (``numba_cache``): several of its modules import numba,
and a module imported before the folder is set would make numba cache its machine code in ``__pycache__`` beside
the sources, where a changed callee in another file does not invalidate it (stale code ran: NaN for ``x mod inf``).
"""

from .numba_cache import configure_numba_cache

configure_numba_cache()
