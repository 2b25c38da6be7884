"""Where numba caches the CPU kernels: set before numba is first imported (it reads its environment then).

The one place of this policy: the CPU kernels import it before numba, and so does the CPU engine. It reads numba's
own variables (``NUMBA_CACHE_DIR``, ``NUMBA_THREADING_LAYER``), not cldnn_py's knobs.

numba invalidates a cached function when its own source file changes, not when a function it calls from another
module does. The numba kernels call the epilogue, launcher and element-wise functions of ``kernel_selector/common``
(generated from ``cldnn_py/ops/elementwise.py``), so the default cache folder is keyed by a digest of those files: a
changed formula or epilogue starts a fresh cache instead of running stale machine code.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def shared_code_digest() -> str:
    """12 hex digits of SHA-1 over the sources numba kernels call across modules (kernel_selector/common/*.py and
    cldnn_py/ops/elementwise.py), in name order."""
    h = hashlib.sha1()
    files = sorted(_HERE.glob("*.py")) + [_HERE.parents[1] / "cldnn_py" / "ops" / "elementwise.py"]
    for f in files:
        if f.is_file():
            h.update(f.name.encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:12]


def configure_numba_cache() -> str:
    """Set ``NUMBA_CACHE_DIR`` to ``<platformdirs user cache>/cldnn_py/numba/<shared_code_digest()>`` unless the user
    set it, so the CPU kernels (``numba.njit(cache=True)``) compile once per machine and code version, also from a
    read-only install, and ``NUMBA_THREADING_LAYER`` to ``workqueue`` unless set (OpenMP's idle threads spin and slow
    the BLAS calls between numba's parallel regions). Returns the cache folder."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        import platformdirs

        os.environ["NUMBA_CACHE_DIR"] = os.path.join(platformdirs.user_cache_dir("cldnn_py"), "numba",
                                                     shared_code_digest())
    os.environ.setdefault("NUMBA_THREADING_LAYER", "workqueue")
    return os.environ["NUMBA_CACHE_DIR"]
