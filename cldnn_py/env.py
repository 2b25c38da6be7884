"""Every environment knob of cldnn_py, read in one place (README lists them).

- ``CLDNN_PY_DEVICE``: default device spec for ``Engine()`` (``cl:P:D``, ``cl:N``).
- ``CLDNN_PY_CACHE_DIR``: where compiled kernel binaries are cached (default: the platformdirs user cache).
- ``CLDNN_PY_NO_CACHE``: ``1`` turns the kernel binary cache off.
- ``POCL_CACHE_DIR``: PoCL's own; when unset, PoCL's compiled kernels go under the kernel binary cache folder
  (``<cache>/pocl``), set before cldnn_py first lists the OpenCL platforms (PoCL reads it when it starts).
- ``CLDNN_PY_DEBUG``: ``1`` turns on debug logging of passes and kernel selection.
- ``CLDNN_PY_DUMP_GRAPHS``: a directory; the pass manager writes ``NN_<pass>.dot`` after every pass.
- ``CLDNN_PY_TUNING_CACHE``: the user's tuning cache file (default: the platformdirs user cache folder).
- ``NUMBA_CACHE_DIR``: numba's own; when unset, the CPU kernels' compiled code is cached under
  ``<platformdirs user cache>/cldnn_py/numba`` (set before numba is imported: :func:`configure_numba_cache`).
- ``NUMBA_THREADING_LAYER``: numba's own; when unset, the CPU kernels use ``workqueue`` (OpenMP's idle threads
  spin and slow the BLAS calls between numba's parallel regions: ResNet-50 on the CPU engine 860 -> 340 ms).
- ``CLDNN_PY_FORCE_IMPL``: ``prim_id:kernel_name[,prim_id:kernel_name...]`` forces the kernel of a primitive.
``PYOPENCL_CTX`` is honoured the way pyopencl reads it when no device is given.
"""

from __future__ import annotations

import os


def device() -> str | None:
    """The ``CLDNN_PY_DEVICE`` spec, or None."""
    return os.environ.get("CLDNN_PY_DEVICE") or None


def cache_dir() -> str | None:
    """The ``CLDNN_PY_CACHE_DIR`` directory, or None."""
    return os.environ.get("CLDNN_PY_CACHE_DIR") or None


def configure_pocl_cache(directory: str | None = None) -> None:
    """Put PoCL's cache under ours (``<directory or kernel cache folder>/pocl``) unless ``POCL_CACHE_DIR`` is set; a
    no-op with ``CLDNN_PY_NO_CACHE``. Called before cldnn_py first lists the platforms (device._platforms), and by
    ``Engine(cache_dir=...)`` with its folder. PoCL reads the variable once, when its platform starts, so the first
    call in a process decides (it sets the variable, which makes later calls no-ops)."""
    if os.environ.get("POCL_CACHE_DIR") or no_cache():
        return
    from .kernel_cache import default_dir

    os.environ["POCL_CACHE_DIR"] = os.path.join(directory, "pocl") if directory else str(default_dir() / "pocl")


def binary_cache(driver_caches: bool) -> bool:
    """Whether the kernel cache stores program binaries: ``CLDNN_PY_BINARY_CACHE`` ``1`` always, ``0`` never,
    unset (or ``auto``) only when the driver has no build cache of its own (``not driver_caches``)."""
    v = os.environ.get("CLDNN_PY_BINARY_CACHE", "auto").strip().lower()
    if v in ("", "auto"):
        return not driver_caches
    return v not in ("0", "false", "no", "off")


def no_cache() -> bool:
    """True when ``CLDNN_PY_NO_CACHE`` is set to a non-empty value other than ``0``."""
    return os.environ.get("CLDNN_PY_NO_CACHE", "0") not in ("", "0")


def tuning_cache() -> str | None:
    """The ``CLDNN_PY_TUNING_CACHE`` file, or None."""
    return os.environ.get("CLDNN_PY_TUNING_CACHE") or None


def configure_numba_cache() -> str:
    """Set ``NUMBA_CACHE_DIR`` to ``<platformdirs user cache>/cldnn_py/numba`` unless the user set it, so the CPU
    kernels (``numba.njit(cache=True)``) compile once per machine, also from a read-only install, and
    ``NUMBA_THREADING_LAYER`` to ``workqueue`` unless set. Returns the cache folder."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        import platformdirs

        os.environ["NUMBA_CACHE_DIR"] = os.path.join(platformdirs.user_cache_dir("cldnn_py"), "numba")
    os.environ.setdefault("NUMBA_THREADING_LAYER", "workqueue")
    return os.environ["NUMBA_CACHE_DIR"]


def debug() -> bool:
    """True when ``CLDNN_PY_DEBUG`` is set to a non-empty value other than ``0``."""
    return os.environ.get("CLDNN_PY_DEBUG", "0") not in ("", "0")


def dump_graphs_dir() -> str | None:
    """The ``CLDNN_PY_DUMP_GRAPHS`` directory, or None."""
    return os.environ.get("CLDNN_PY_DUMP_GRAPHS") or None


def forced_impls() -> dict[str, str]:
    """``CLDNN_PY_FORCE_IMPL`` parsed as {primitive id: kernel name}."""
    raw = os.environ.get("CLDNN_PY_FORCE_IMPL", "")
    out: dict[str, str] = {}
    for item in raw.split(","):
        if ":" in item:
            pid, name = item.rsplit(":", 1)
            out[pid.strip()] = name.strip()
    return out
