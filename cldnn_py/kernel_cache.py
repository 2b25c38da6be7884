"""The kernel binary cache: OpenCL program binaries on disk, so a second process starts without compiling.

clDNN keeps compiled kernels in a cache keyed by their source; here ``Engine.build`` asks this cache first. The key is
the SHA-256 of everything that decides the binary: the full program source (jit headers included), the build
options, the device name, the platform version (PoCL and its LLVM), the driver version and the cldnn_py version.
Entries are ``<dir>/<key[:2]>/<key>.bin``: an 8-byte magic, the SHA-256 of the payload, then the payload (what
``clGetProgramInfo(CL_PROGRAM_BINARIES)`` returned). Writes go to a temporary file renamed into place (atomic, so
concurrent processes never see half an entry); an entry whose digest does not match (truncated, corrupt) or that the
driver rejects is logged, deleted and rebuilt, never fatal.

The cache policy lives here too (env.py only reads the knobs): :func:`binary_cache` (store binaries or not),
:func:`configure_pocl_cache` (PoCL's cache under ours) (the CPU kernels' numba cache: kernel_selector.common.numba_cache
and threading layer).

Where: ``Engine(cache_dir=...)``, else ``CLDNN_PY_CACHE_DIR``, else ``<platformdirs user cache>/cldnn_py/kernels``;
``CLDNN_PY_NO_CACHE=1`` turns it off. A folder that cannot be written falls back to a temporary one, with a warning.

Drivers with a cache of their own. PoCL keeps every build on disk keyed by source and options (``POCL_CACHE_DIR``,
which cldnn_py puts under this folder as ``<dir>/pocl``), including the work-group functions it compiles at a
kernel's first launch. Asking PoCL for ``CL_PROGRAM_BINARIES`` is expensive: it compiles every kernel of the program
once more, for a generic work-group size, to make the binary self-contained. Measured on ResNet-50's Program in
fresh processes on a quiet machine (``python benchmarks/build_time.py``): cold build 21.0 s with binaries fetched,
5.4 s without; warm 0.9-1.2 s from our binaries, 1.1-1.4 s from PoCL's cache alone. So on PoCL the binaries are
left to PoCL's cache (``binaries`` False) and this cache stores nothing; ``CLDNN_PY_BINARY_CACHE=1`` stores them
anyway (``0``: never).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger("cldnn_py.kernel_cache")

MAGIC = b"CLDNNPY1"


def driver_caches(device: Any) -> bool:
    """True for a driver that keeps its own persistent build cache (PoCL), from a DeviceInfo's platform name."""
    return device is not None and "portable computing language" in str(getattr(device, "platform", "")).lower()


def binary_cache(driver_caches: bool) -> bool:
    """Whether the kernel cache stores program binaries: ``CLDNN_PY_BINARY_CACHE`` ``1`` always, ``0`` never,
    unset (or ``auto``) only when the driver has no build cache of its own (``not driver_caches``)."""
    from . import env

    v = env.binary_cache_mode()
    if v == "auto":
        return not driver_caches
    return v not in ("0", "false", "no", "off")


def configure_pocl_cache(directory: str | None = None) -> None:
    """Put PoCL's cache under ours (``<directory or kernel cache folder>/pocl``) unless ``POCL_CACHE_DIR`` is set; a
    no-op with ``CLDNN_PY_NO_CACHE``. Called before cldnn_py first lists the platforms (device._platforms), and by
    ``Engine(cache_dir=...)`` with its folder. PoCL reads the variable once, when its platform starts, so the first
    call in a process decides (it sets the variable, which makes later calls no-ops)."""
    from . import env

    if env.pocl_cache_dir() or env.no_cache():
        return
    os.environ["POCL_CACHE_DIR"] = os.path.join(directory, "pocl") if directory else str(default_dir() / "pocl")


def default_dir() -> Path:
    """``CLDNN_PY_CACHE_DIR`` if set, else ``<platformdirs user cache>/cldnn_py/kernels``."""
    from . import env

    if env.cache_dir():
        return Path(str(env.cache_dir()))
    import platformdirs

    return Path(platformdirs.user_cache_dir("cldnn_py")) / "kernels"


class KernelCache:
    """Program binaries on disk (see the module docstring). ``hits`` / ``misses`` / ``rejected`` count lookups.

    Args:
        directory: the cache folder (None: :func:`default_dir`).
        enabled: False makes every lookup a miss and stores nothing (``CLDNN_PY_NO_CACHE=1``).
        binaries: False when the driver caches its own builds (PoCL): ``Engine.build`` then neither looks up nor
            fetches program binaries (see the module docstring).
    """

    def __init__(self, directory: Path | str | None = None, enabled: bool = True, binaries: bool = True) -> None:
        self.directory = Path(directory) if directory is not None else default_dir()
        self.enabled = enabled
        self.binaries = binaries
        self.hits = self.misses = self.rejected = 0

    @property
    def active(self) -> bool:
        """True when Engine.build should look up and store program binaries here."""
        return self.enabled and self.binaries

    @classmethod
    def for_engine(cls, cache_dir: Path | str | None = None, device: Any = None) -> KernelCache:
        """The cache an Engine uses: ``cache_dir`` or the default folder; off when ``CLDNN_PY_NO_CACHE`` is set.
        ``device`` (a DeviceInfo) decides ``binaries``: False on PoCL unless ``CLDNN_PY_BINARY_CACHE=1``."""
        from . import env

        return cls(cache_dir, enabled=not env.no_cache(), binaries=binary_cache(driver_caches(device)))

    @staticmethod
    def key(source: str, options: list[str], device: Any) -> str:
        """SHA-256 (hex) of the source, build options, device name, platform and driver versions, package version."""
        from .version import __version__

        text = json.dumps([source, list(options), device.name, device.platform_version, device.driver_version,
                           __version__])
        return hashlib.sha256(text.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.bin"

    def load(self, key: str) -> bytes | None:
        """The stored binary, or None (absent, cache off, or corrupt: then the entry is deleted)."""
        if not self.enabled:
            return None
        path = self._path(key)
        try:
            data = path.read_bytes()
        except OSError:
            self.misses += 1
            return None
        payload = data[len(MAGIC) + 32:]
        if data[:len(MAGIC)] != MAGIC or hashlib.sha256(payload).digest() != data[len(MAGIC):len(MAGIC) + 32]:
            log.warning("kernel cache entry %s is corrupt (%d bytes); rebuilding it", path, len(data))
            self.discard(key)
            self.misses += 1
            return None
        self.hits += 1
        return payload

    def discard(self, key: str) -> None:
        """Delete an entry (the driver rejected it, or it is corrupt)."""
        self.rejected += 1
        try:
            self._path(key).unlink()
        except OSError:
            pass

    def store(self, key: str, binary: bytes) -> None:
        """Write an entry atomically; a folder that cannot be written is replaced by a temporary one (warning)."""
        if not self.enabled or not binary:
            return
        for attempt in range(2):
            path = self._path(key)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp_", suffix=".bin")
                with os.fdopen(fd, "wb") as fh:
                    fh.write(MAGIC + hashlib.sha256(binary).digest() + binary)
                os.replace(tmp, path)
                return
            except OSError as err:
                if attempt:
                    log.warning("kernel cache: cannot write %s (%s); caching off", path, err)
                    self.enabled = False
                    return
                uid = os.getuid() if hasattr(os, "getuid") else 0
                fallback = Path(tempfile.gettempdir()) / f"cldnn_py_kernels_{uid}"
                log.warning("kernel cache folder %s cannot be written (%s); using %s", self.directory, err, fallback)
                self.directory = fallback

    def info(self) -> dict[str, Any]:
        """{"directory", "enabled", "entries", "bytes", "pocl_bytes"} of the folder (``pocl_bytes``: PoCL's own
        cache under ``<dir>/pocl``, where PoCL builds are kept)."""
        files = list(self.directory.glob("*/*.bin")) if self.directory.is_dir() else []
        pocl = self.directory / "pocl"
        pocl_bytes = sum(f.stat().st_size for f in pocl.rglob("*") if f.is_file()) if pocl.is_dir() else 0
        return {"directory": str(self.directory), "enabled": self.enabled, "entries": len(files),
                "bytes": sum(f.stat().st_size for f in files), "pocl_bytes": pocl_bytes}

    def clear(self) -> int:
        """Delete every entry and PoCL's cache under ``<dir>/pocl``; returns how many entries (not PoCL files)."""
        import shutil

        files = list(self.directory.glob("*/*.bin")) if self.directory.is_dir() else []
        for f in files:
            f.unlink(missing_ok=True)
        shutil.rmtree(self.directory / "pocl", ignore_errors=True)
        return len(files)


def default_tuning_cache_path() -> Path:
    """The user's tuning cache file: ``CLDNN_PY_TUNING_CACHE`` if set, else
    ``<platformdirs user cache dir>/cldnn_py/tuning_cache.json``."""
    from . import env

    if env.tuning_cache():
        return Path(str(env.tuning_cache()))
    import platformdirs

    return Path(platformdirs.user_cache_dir("cldnn_py")) / "tuning_cache.json"
