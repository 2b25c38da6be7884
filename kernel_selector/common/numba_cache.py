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


GOMP_SPIN = "20000"  # libgomp's spin before an idle thread sleeps, in pause instructions (default 300,000)


def configure_numba_cache() -> str:
    """Set ``NUMBA_CACHE_DIR`` to ``<platformdirs user cache>/cldnn_py/numba/<shared_code_digest()>`` (with
    ``-full512-<value>`` when ``CLDNN_PY_CPU_FULL_512`` is set; created 0700;
    refused with a warning for a private temporary folder when another user owns it or others can write it:
    ``cldnn_py.safe_dirs.private_dir``) unless the user set it, so the CPU kernels (``numba.njit(cache=True)``)
    compile once per machine and code version, also from a read-only install; and, unless the user chose a threading
    layer (``NUMBA_THREADING_LAYER`` or ``NUMBA_THREADING_LAYER_PRIORITY``), numba's layer priority to OpenMP first
    (``omp tbb workqueue``) with ``GOMP_SPINCOUNT`` at :data:`GOMP_SPIN` unless set. Returns the cache folder.

    Why OpenMP: a parallel region on numba's ``workqueue`` layer costs 70-150 us to launch even on one thread
    (a queue and condition variables per launch), on GNU OpenMP 2 us while its threads spin and ~30 us once they
    sleep; a network of 75-250 small kernels lost 5-35 ms per run to it (MobileNetV3 b1 16 -> 5.7 ms, DenseNet-121
    77 -> 44 ms with OpenMP). Why a short spin: libgomp's default spin (300,000 pauses, milliseconds) holds both
    cores after the last kernel of a run, against OpenBLAS and the next process; 20,000 pauses (~0.3 ms here)
    bridges the gap between two kernels of a run and then sleeps."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        import platformdirs

        from cldnn_py.safe_dirs import private_dir

        # numba loads pickled index files and machine code from this folder: private (0700) and owned by the user,
        # else a private temporary folder (docs/caches.md, "Trust")
        # CLDNN_PY_CPU_FULL_512 (cpu_fma_rate.py) changes the tiles compiled into the kernels without changing their
        # source or the CPU numba keys its own index by: its own folder
        rate = os.environ.get("CLDNN_PY_CPU_FULL_512", "")
        wanted = os.path.join(platformdirs.user_cache_dir("cldnn_py"), "numba",
                              shared_code_digest() + (f"-full512-{rate}" if rate else ""))
        os.environ["NUMBA_CACHE_DIR"] = str(private_dir(wanted, "numba cache"))
    if not os.environ.get("NUMBA_THREADING_LAYER") and not os.environ.get("NUMBA_THREADING_LAYER_PRIORITY"):
        os.environ["NUMBA_THREADING_LAYER_PRIORITY"] = "omp tbb workqueue"
    os.environ.setdefault("GOMP_SPINCOUNT", GOMP_SPIN)
    import sys

    numba_config = sys.modules.get("numba.core.config")
    if numba_config is not None and getattr(numba_config, "CACHE_DIR", None) != os.environ["NUMBA_CACHE_DIR"]:
        # numba was imported first (by the user or another library) and read its environment then: its cache
        # locators read config.CACHE_DIR when a cached function is defined, so setting it still takes effect
        numba_config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]  # type: ignore[attr-defined]
    return os.environ["NUMBA_CACHE_DIR"]
