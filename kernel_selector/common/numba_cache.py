"""Where numba caches the CPU kernels: set before numba is first imported (it reads its environment then).

The one place of this policy: the CPU kernels import it before numba, and so does the CPU engine. It reads numba's
own variables (``NUMBA_CACHE_DIR``, ``NUMBA_THREADING_LAYER``), not cldnn_py's knobs.
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
