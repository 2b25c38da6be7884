"""BLAS on one thread while CPU-engine networks run (:func:`single_threaded_blas`), and whether it is (:func:`active`).

Why: OpenBLAS (numpy's and scipy's) runs a pool of worker threads that, after each multi-threaded call, spin for a
while (``OPENBLAS_THREAD_TIMEOUT``, 2^28 cycles by default: about 0.1 s) before they sleep. The CPU engine's numba
kernels run on their own OpenMP threads; on a 2-core machine a spinning BLAS thread holds a core, so every numba
kernel after a BLAS product waited for the OS to time-slice it in: a ViT-Tiny-style network ran in 97 ms, 36 ms with
BLAS on one thread (its (9, 197, 64) head splits took 1.3-2 ms instead of 0.05). With BLAS on one thread, the
BLAS-backed kernels split a product into one BLAS call per numba thread themselves
(:func:`~kernel_selector.common.cpu_blas.dot_rows`, only while :func:`active`: concurrent calls into a
multi-threaded OpenBLAS are not safe). The limit is process-wide while at least one execution runs (a count, so
networks run from several Python threads share it) and the previous thread counts come back after the last one;
through threadpoolctl (the scikit-learn project's library for this).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

_LOCK = threading.Lock()
_STATE: dict[str, Any] = {"controller": None, "made": False, "depth": 0, "restore": None}


def _controller() -> Any:
    """A threadpoolctl controller over the BLAS libraries loaded now (numpy's; scipy's, which numba's ``np.dot``
    calls, is loaded first), made once; None without threadpoolctl. Called under _LOCK."""
    if not _STATE["made"]:
        _STATE["made"] = True
        try:
            import scipy.linalg.cython_blas  # noqa: F401  (numba's np.dot calls this library)
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - both are dependencies
            return None
        _STATE["controller"] = ThreadpoolController().select(user_api="blas")
    return _STATE["controller"]


def active() -> bool:
    """True while some execution holds BLAS on one thread (so concurrent BLAS calls from numba threads are safe)."""
    return _STATE["depth"] > 0 and _STATE["controller"] is not None


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Every loaded BLAS library on one thread for the duration (the first of nested or concurrent uses sets it,
    the last restores the previous counts; about 20 us); nothing when threadpoolctl is missing."""
    with _LOCK:
        c = _controller()
        if _STATE["depth"] == 0 and c is not None:
            _STATE["restore"] = c.limit(limits=1)
        _STATE["depth"] += 1
    try:
        yield
    finally:
        with _LOCK:
            _STATE["depth"] -= 1
            if _STATE["depth"] == 0 and _STATE["restore"] is not None:
                _STATE["restore"].restore_original_limits()
                _STATE["restore"] = None
