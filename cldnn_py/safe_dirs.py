"""Private cache folders: what the kernel binary cache and PoCL's cache may live in, and how their files are opened.

Why: PoCL loads the kernels it finds in its cache as shared objects (``dlopen``), and the kernel binary cache hands
the driver program binaries to load; whoever can write either folder runs code in every process that uses it. So a
cache folder is trusted only when nobody else can write it, the rule ssh applies to ``~/.ssh`` and pip to its
cache: the folder must belong to the current user and must not be writable by its group or by others (``0700`` as
created here; an existing ``0755`` folder of the user is fine). A folder that fails the check is refused with a
warning that names it and the reason (owner uid, mode), and a private temporary folder (``tempfile.mkdtemp``,
deleted at exit) is used instead: the process still runs, without a persistent cache.

Inside a checked folder nothing leads out of it: sub-folders are checked without following a symbolic link, and
files are opened with ``O_NOFOLLOW | O_NONBLOCK`` and used only when ``fstat`` says they are regular files (a FIFO
planted as an entry cannot block the process, a symbolic link cannot point the cache at another file).

On systems without POSIX owners and modes (Windows) only the folder's existence is checked.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import stat
import tempfile
import threading
from pathlib import Path

log = logging.getLogger("cldnn_py.safe_dirs")

PRIVATE_MODE = 0o700
"""The mode folders are created with: read, write and search by the owner only."""

_POSIX = os.name == "posix"
_lock = threading.Lock()
_fallbacks: dict[tuple[str, str], Path] = {}  # (folder, purpose) -> the temporary folder used instead, per process


def current_uid() -> int:
    """The effective user id of this process (what owns the folders it creates); -1 where there is none."""
    return os.geteuid() if hasattr(os, "geteuid") else -1


def unsafe_reason(path: Path | str, follow_symlinks: bool = True) -> str | None:
    """Why ``path`` is not a private folder of the current user, or None when it is one.

    Args:
        path: an existing folder.
        follow_symlinks: True for a folder the user named (a symbolic link to a folder is judged by its target);
            False for a folder inside a cache, where a symbolic link is itself the reason to refuse it.
    Returns:
        A phrase that completes "folder X ...": "is a symbolic link", "is not a folder", "is owned by uid 1001, not
        by the current user (uid 1000)", "has mode 0o775: its group or others can write it (expected 0o700, or at
        most 0o755)", or "cannot be read (...)" for a path whose status cannot be read.
    """
    try:
        st = os.stat(path) if follow_symlinks else os.lstat(path)
    except OSError as err:
        return f"cannot be read ({err})"
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder"
    if not _POSIX:
        return None
    uid = current_uid()
    if st.st_uid != uid:
        return f"is owned by uid {st.st_uid}, not by the current user (uid {uid})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return (f"has mode {oct(stat.S_IMODE(st.st_mode))}: its group or others can write it "
                f"(expected {oct(PRIVATE_MODE)}, or at most 0o755)")
    return None


def _make_private(path: Path) -> None:
    """Create ``path`` and every missing parent with mode 0700 (``os.makedirs`` gives the parents the default mode)."""
    missing = []
    p = path
    while not os.path.lexists(p) and p != p.parent:
        missing.append(p)
        p = p.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, PRIVATE_MODE)
        except FileExistsError:  # another process made it meanwhile: it is checked like any existing folder
            pass


def temp_private_dir(purpose: str) -> Path:
    """A new private folder (``tempfile.mkdtemp``: mode 0700, an unpredictable name in the temporary folder),
    deleted when the process exits. ``purpose`` (e.g. "kernel cache") becomes part of its name."""
    path = Path(tempfile.mkdtemp(prefix=f"cldnn_py_{purpose.replace(' ', '_')}_"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def private_dir(path: Path | str, purpose: str, follow_symlinks: bool = True) -> Path:
    """``path`` as a private cache folder: created with mode 0700 (parents too) when missing, checked when it exists
    (:func:`unsafe_reason`). A folder that cannot be created or fails the check is refused with a warning on the
    ``cldnn_py.safe_dirs`` logger naming the folder and the reason, and a private temporary folder
    (:func:`temp_private_dir`) is returned instead; the same one for the same folder for the rest of the process.

    Args:
        path: the folder wanted.
        purpose: what it is for, in the warning ("kernel cache", "PoCL cache").
        follow_symlinks: see :func:`unsafe_reason` (False for a folder inside a checked cache folder).
    Returns:
        ``path`` when it is private, else the temporary folder. Never raises for a bad folder.
    """
    path = Path(path)
    with _lock:
        known = _fallbacks.get((str(path), purpose))
        if known is not None:
            return known
        try:
            _make_private(path)
            reason = unsafe_reason(path, follow_symlinks)
        except OSError as err:
            reason = f"cannot be written: {err}"
        if reason is None:
            return path
        fallback = temp_private_dir(purpose)
        _fallbacks[(str(path), purpose)] = fallback
    log.warning("%s folder %s %s; refusing it and using the private temporary folder %s instead (fix the folder, "
                "e.g. chmod 700, or point the cache elsewhere)", purpose, path, reason, fallback)
    return fallback


def private_subdir(parent: Path, name: str) -> Path | None:
    """``parent / name`` created with mode 0700, or checked without following a symbolic link when it exists; None
    (with a debug record) when it is not a private folder of the current user. ``parent`` must already have passed
    :func:`private_dir`."""
    path = parent / name
    try:
        os.mkdir(path, PRIVATE_MODE)
    except FileExistsError:
        pass
    except OSError as err:
        log.debug("cannot create %s: %s", path, err)
        return None
    reason = unsafe_reason(path, follow_symlinks=False)
    if reason is not None:
        log.debug("cache sub-folder %s %s; not used", path, reason)
        return None
    return path


def read_regular_file(path: Path) -> bytes:
    """The bytes of ``path`` when it is a regular file, read without following a symbolic link in its last part and
    without blocking on a FIFO (``O_NOFOLLOW | O_NONBLOCK``, then ``fstat``).

    Raises:
        FileNotFoundError: there is no such file.
        OSError: it is a symbolic link (ELOOP), a FIFO, a device, a folder, or cannot be read; the message names it.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{path} is not a regular file (mode {oct(st.st_mode)})")
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
