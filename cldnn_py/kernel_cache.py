"""The kernel binary cache: OpenCL program binaries on disk, so a second process starts without compiling.

clDNN keeps compiled kernels in a cache keyed by their source; here ``Engine.build`` asks this cache first. The key is
the SHA-256 of everything that decides the binary: the full program source (jit headers included), the build
options, the device name, the platform version (PoCL and its LLVM), the driver version and the cldnn_py version.
Entries are ``<dir>/<key[:2]>/<key>.bin``: an 8-byte magic, the entry's own key (64 hex digits), the SHA-256 of key
and payload, then the payload (what ``clGetProgramInfo(CL_PROGRAM_BINARIES)`` returned). The key inside binds an
entry to its name: a valid entry copied under another key is refused, as is one whose digest does not match
(truncated, corrupt). Writes go to a temporary file renamed into place (atomic, so concurrent processes never see half
an entry); an entry is read only when it is a regular file (``O_NOFOLLOW | O_NONBLOCK``, then ``fstat``: a symbolic
link or a FIFO is refused without blocking). A bad entry, or one the driver rejects, is logged, deleted and rebuilt,
never fatal.

Nothing from disk is trusted: the folder (and PoCL's under it) is created private (0700) and refused when another
user owns it or its group or others can write it (:mod:`cldnn_py.safe_dirs`: a warning, then a private temporary
folder for the rest of the process). Sharing a cache folder between users means trusting every one of its writers.

The cache policy lives here too (env.py only reads the knobs): :func:`binary_cache` (store binaries or not),
:func:`configure_pocl_cache` (PoCL's cache under ours) (the CPU kernels' numba cache: kernel_selector.common.numba_cache
and threading layer).

Where: ``Engine(cache_dir=...)``, else ``CLDNN_PY_CACHE_DIR``, else ``<platformdirs user cache>/cldnn_py/kernels``;
``CLDNN_PY_NO_CACHE=1`` turns it off. A folder that cannot be written, or that is not private, falls back to a private
temporary one, with a warning.

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

from kernel_selector.device_caps import vector_width

from .safe_dirs import private_dir, private_subdir, read_regular_file, temp_private_dir, unsafe_reason

log = logging.getLogger("cldnn_py.kernel_cache")

MAGIC = b"CLDNNPY2"  # 2: the entry carries its key (1: payload digest only)
KEY_CHARS = 64  # a key is a SHA-256 in hex


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
    call in a process decides (it sets the variable, which makes later calls no-ops).

    PoCL ``dlopen``s what it finds there, so both folders are created private (0700) and checked
    (:func:`cldnn_py.safe_dirs.private_dir`; ``pocl`` without following a symbolic link): a folder another user owns,
    or that its group or others can write, is refused with a warning and PoCL gets a private temporary folder. A
    ``POCL_CACHE_DIR`` the user set is the user's choice and is left as it is."""
    from . import env

    if env.pocl_cache_dir() or env.no_cache():
        return
    base = private_dir(Path(directory) if directory else default_dir(), "kernel cache")
    pocl = private_dir(base / "pocl", "PoCL cache", follow_symlinks=False)
    os.environ["POCL_CACHE_DIR"] = str(pocl)


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
        directory: the cache folder (None: :func:`default_dir`). It is created private (0700) or checked at the first
            lookup or store; a folder that is not private is replaced by a private temporary one, with a warning
            (:func:`cldnn_py.safe_dirs.private_dir`).
        enabled: False makes every lookup a miss and stores nothing (``CLDNN_PY_NO_CACHE=1``).
        binaries: False when the driver caches its own builds (PoCL): ``Engine.build`` then neither looks up nor
            fetches program binaries (see the module docstring).
    """

    def __init__(self, directory: Path | str | None = None, enabled: bool = True, binaries: bool = True) -> None:
        self.directory = Path(directory) if directory is not None else default_dir()
        self.enabled = enabled
        self.binaries = binaries
        self.hits = self.misses = self.rejected = 0
        self._checked = False

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
        """SHA-256 (hex) of the source, build options, device name, platform and driver versions, the device's native
        float vector width and the package version. The width tells apart one PoCL on VMs that show AVX-512 (16)
        and hide it (8) under the same name and versions: a binary compiled where the host has AVX-512 must not be
        loaded where it has not."""
        from .version import __version__

        text = json.dumps([source, list(options), device.name, device.platform_version, device.driver_version,
                           vector_width(device), __version__])
        return hashlib.sha256(text.encode()).hexdigest()

    def folder(self) -> Path:
        """The cache folder, made private (created 0700, or checked) or replaced by a private temporary one with a
        warning, the first time (:func:`cldnn_py.safe_dirs.private_dir`); ``directory`` then names the folder used."""
        if not self._checked:
            self.directory = private_dir(self.directory, "kernel cache")
            self._checked = True
        return self.directory

    def _path(self, key: str) -> Path:
        return self.folder() / key[:2] / f"{key}.bin"

    @staticmethod
    def _envelope(key: str, binary: bytes) -> bytes:
        """An entry's bytes: magic, key, SHA-256 of key and payload, payload (the module docstring)."""
        return MAGIC + key.encode() + hashlib.sha256(key.encode() + binary).digest() + binary

    @staticmethod
    def _open_envelope(key: str, data: bytes) -> bytes | None:
        """The payload of entry bytes ``data`` stored for ``key``, or None when the magic, the key inside or the
        digest does not match (corrupt, truncated, of another format, or copied from another key's entry)."""
        start = len(MAGIC) + KEY_CHARS
        stored_key, digest, payload = data[len(MAGIC):start], data[start:start + 32], data[start + 32:]
        if data[:len(MAGIC)] != MAGIC or stored_key != key.encode() or not payload:
            return None
        return payload if hashlib.sha256(stored_key + payload).digest() == digest else None

    def load(self, key: str) -> bytes | None:
        """The stored binary, or None: absent, cache off, or a bad entry (not a regular file, a symbolic link, corrupt,
        or bound to another key), which is then logged and deleted. Never raises for what is on disk."""
        if not self.enabled:
            return None
        path = self._path(key)
        bad_sub = unsafe_reason(path.parent, follow_symlinks=False) if os.path.lexists(path.parent) else None
        if bad_sub is not None:  # e.g. a symbolic link out of the folder: neither read nor delete through it
            log.warning("kernel cache sub-folder %s %s; not reading from it", path.parent, bad_sub)
            self.misses += 1
            return None
        try:
            data = read_regular_file(path)
        except FileNotFoundError:
            self.misses += 1
            return None
        except OSError as err:  # a symbolic link (ELOOP), a FIFO, a folder, unreadable
            log.warning("kernel cache entry %s is not a readable regular file (%s); discarding it", path, err)
            self.discard(key)
            self.misses += 1
            return None
        payload = self._open_envelope(key, data)
        if payload is None:
            log.warning("kernel cache entry %s is corrupt or belongs to another key (%d bytes); rebuilding it", path,
                        len(data))
            self.discard(key)
            self.misses += 1
            return None
        self.hits += 1
        return payload

    def discard(self, key: str) -> None:
        """Delete an entry (the driver rejected it, or it is bad); a symbolic link is removed, not its target."""
        self.rejected += 1
        try:
            self._path(key).unlink()
        except OSError:
            pass

    def store(self, key: str, binary: bytes) -> None:
        """Write an entry atomically; a folder that cannot be written is replaced by a private temporary one
        (warning), a sub-folder that is not private (a symbolic link, say) makes the store a no-op (debug record)."""
        if not self.enabled or not binary:
            return
        for attempt in range(2):
            folder = self.folder()
            try:
                sub = private_subdir(folder, key[:2])
                if sub is None:
                    return
                fd, tmp = tempfile.mkstemp(dir=sub, prefix=".tmp_", suffix=".bin")
                with os.fdopen(fd, "wb") as fh:
                    fh.write(self._envelope(key, binary))
                os.replace(tmp, sub / f"{key}.bin")
                return
            except OSError as err:
                if attempt:
                    log.warning("kernel cache: cannot write %s (%s); caching off", folder, err)
                    self.enabled = False
                    return
                fallback = temp_private_dir("kernel cache")
                log.warning("kernel cache folder %s cannot be written (%s); using %s", folder, err, fallback)
                self.directory = fallback

    def _files(self) -> list[Path]:
        """The entry files: ``<dir>/<2 hex>/<key>.bin`` regular files in real sub-folders (no symbolic link is
        followed, so ``info`` and ``clear`` never reach outside the folder)."""
        out: list[Path] = []
        if not self.directory.is_dir():
            return out
        for sub in self.directory.iterdir():
            if sub.name == "pocl" or sub.is_symlink() or not sub.is_dir():
                continue
            out += [f for f in sub.glob("*.bin") if not f.is_symlink() and f.is_file()]
        return out

    def info(self) -> dict[str, Any]:
        """{"directory", "enabled", "entries", "bytes", "pocl_bytes"} of the folder (``pocl_bytes``: PoCL's own
        cache under ``<dir>/pocl``, where PoCL builds are kept; symbolic links are not followed)."""
        files = self._files()
        pocl = self.directory / "pocl"
        pocl_bytes = 0
        if pocl.is_dir() and not pocl.is_symlink():
            for root, _, names in os.walk(pocl):  # os.walk does not enter linked folders
                pocl_bytes += sum(os.lstat(os.path.join(root, n)).st_size for n in names)
        return {"directory": str(self.directory), "enabled": self.enabled, "entries": len(files),
                "bytes": sum(f.stat().st_size for f in files), "pocl_bytes": pocl_bytes}

    def clear(self) -> int:
        """Delete every entry and PoCL's cache under ``<dir>/pocl``; returns how many entries (not PoCL files).
        Symbolic links are removed, never followed."""
        import shutil

        files = self._files()
        for f in files:
            f.unlink(missing_ok=True)
        pocl = self.directory / "pocl"
        if pocl.is_symlink():
            pocl.unlink()
        else:
            shutil.rmtree(pocl, ignore_errors=True)
        return len(files)


def default_tuning_cache_path() -> Path:
    """The user's tuning cache file: ``CLDNN_PY_TUNING_CACHE`` if set, else
    ``<platformdirs user cache dir>/cldnn_py/tuning_cache.json``."""
    from . import env

    if env.tuning_cache():
        return Path(str(env.tuning_cache()))
    import platformdirs

    return Path(platformdirs.user_cache_dir("cldnn_py")) / "tuning_cache.json"
