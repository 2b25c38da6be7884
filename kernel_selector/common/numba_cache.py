"""Where numba caches the CPU kernels: set before numba is first imported (it reads its environment then).

A copy of ``cldnn_py.env.configure_numba_cache`` that kernel_selector may import (kernel_selector imports only
cldnn_py.ops, cldnn_py.layout and cldnn_py.errors); the cldnn_py.env copy is to go when the cache policy moves.
"""

from __future__ import annotations

import os


def configure_numba_cache() -> str:
    """Set ``NUMBA_CACHE_DIR`` to ``<platformdirs user cache>/cldnn_py/numba`` unless the user set it, so the CPU
    kernels (``numba.njit(cache=True)``) compile once per machine, also from a read-only install, and
    ``NUMBA_THREADING_LAYER`` to ``workqueue`` unless set. Returns the cache folder."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        import platformdirs

        os.environ["NUMBA_CACHE_DIR"] = os.path.join(platformdirs.user_cache_dir("cldnn_py"), "numba")
    os.environ.setdefault("NUMBA_THREADING_LAYER", "workqueue")
    return os.environ["NUMBA_CACHE_DIR"]
