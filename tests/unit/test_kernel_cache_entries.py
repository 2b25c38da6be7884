"""Kernel binary cache entries on disk (cldnn_py/kernel_cache.py), without a device: an entry is bound to its key, a
symbolic link or a FIFO planted as an entry is refused without blocking, a bad entry is a miss (never a crash), the
folder is private, and an unwritable folder falls back to a private temporary folder with an unpredictable name.
Every folder is under tmp_path (never the user's cache)."""

from __future__ import annotations

import logging
import os
import stat
import tempfile
import threading
from types import SimpleNamespace

import pytest

from cldnn_py.kernel_cache import KernelCache

pytestmark = pytest.mark.skipif(os.name != "posix", reason="symbolic links, FIFOs and modes are POSIX")

DEVICE = SimpleNamespace(name="dev", platform_version="OpenCL 3.0 test", driver_version="1")
BINARY = b"\x7fELF a program binary" * 8


def keys(n: int) -> list[str]:
    return [KernelCache.key(f"__kernel void k{i}() {{}}", [], DEVICE) for i in range(n)]


def entry(cache: KernelCache, key: str):
    return cache.directory / key[:2] / f"{key}.bin"


def test_entry_round_trip_and_private_folder(tmp_path):
    cache = KernelCache(tmp_path / "kc")
    (key,) = keys(1)
    cache.store(key, BINARY)
    assert cache.load(key) == BINARY and cache.hits == 1
    assert stat.S_IMODE(os.stat(tmp_path / "kc").st_mode) == 0o700
    assert stat.S_IMODE(os.stat(entry(cache, key).parent).st_mode) == 0o700


def test_a_valid_entry_copied_under_another_key_is_refused(tmp_path, caplog):
    cache = KernelCache(tmp_path)
    good, other = keys(2)
    cache.store(good, BINARY)
    entry(cache, other).parent.mkdir(mode=0o700, exist_ok=True)
    entry(cache, other).write_bytes(entry(cache, good).read_bytes())  # checksum fine, key wrong
    with caplog.at_level(logging.WARNING, logger="cldnn_py.kernel_cache"):
        assert cache.load(other) is None
    assert cache.rejected == 1 and cache.misses == 1 and not entry(cache, other).exists()
    assert "belongs to another key" in caplog.text
    assert cache.load(good) == BINARY


@pytest.mark.parametrize("damage", [
    lambda b: b[: len(b) // 2],                          # truncated
    lambda b: b[:-1] + bytes([b[-1] ^ 1]),                # one bit of the payload
    lambda b: b"",                                        # empty
    lambda b: b"CLDNNPY1" + b[8:],                        # another format's magic
])
def test_a_corrupt_entry_is_a_miss_and_is_deleted(tmp_path, damage):
    cache = KernelCache(tmp_path)
    (key,) = keys(1)
    cache.store(key, BINARY)
    entry(cache, key).write_bytes(damage(entry(cache, key).read_bytes()))
    assert cache.load(key) is None and cache.rejected == 1 and not entry(cache, key).exists()


def test_a_symbolic_link_entry_is_refused_not_followed(tmp_path):
    elsewhere = KernelCache(tmp_path / "elsewhere")
    cache = KernelCache(tmp_path / "kc")
    (key,) = keys(1)
    elsewhere.store(key, BINARY)  # a valid entry for this very key, outside the folder
    cache.store(keys(2)[1], BINARY)  # make the folder
    entry(cache, key).parent.mkdir(mode=0o700, exist_ok=True)
    entry(cache, key).symlink_to(entry(elsewhere, key))
    assert cache.load(key) is None and cache.rejected == 1
    assert not os.path.lexists(entry(cache, key)) and entry(elsewhere, key).exists()  # the link went, not its target


def test_a_symbolic_link_sub_folder_is_neither_read_nor_emptied(tmp_path):
    elsewhere = KernelCache(tmp_path / "elsewhere")
    cache = KernelCache(tmp_path / "kc")
    key, other = keys(2)
    elsewhere.store(key, BINARY)
    cache.store(other, BINARY)
    if other[:2] == key[:2]:
        pytest.skip("both keys in one sub-folder")
    (cache.directory / key[:2]).symlink_to(entry(elsewhere, key).parent)
    assert cache.load(key) is None
    cache.store(key, BINARY)  # not written through the link either
    cache.clear()
    assert entry(elsewhere, key).read_bytes()  # still there: clear() did not follow the link


def test_a_fifo_entry_does_not_block(tmp_path):
    cache = KernelCache(tmp_path)
    (key,) = keys(1)
    cache.store(keys(2)[1], BINARY)
    entry(cache, key).parent.mkdir(mode=0o700, exist_ok=True)
    os.mkfifo(entry(cache, key))
    result: list[object] = []
    t = threading.Thread(target=lambda: result.append(cache.load(key)), daemon=True)
    t.start()
    t.join(10)
    if t.is_alive():  # unblock the reader before failing
        os.close(os.open(entry(cache, key), os.O_WRONLY | os.O_NONBLOCK))
        t.join(10)
        pytest.fail("KernelCache.load blocked on a FIFO planted as an entry")
    assert result == [None] and cache.rejected == 1


def test_a_folder_others_can_write_is_not_used(tmp_path, caplog):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    cache = KernelCache(shared)
    (key,) = keys(1)
    with caplog.at_level(logging.WARNING, logger="cldnn_py.safe_dirs"):
        cache.store(key, BINARY)
    assert list(shared.iterdir()) == [] and cache.directory != shared and cache.load(key) == BINARY
    assert str(shared) in caplog.text and "0o777" in caplog.text


def test_unwritable_folder_falls_back_to_an_unpredictable_private_folder(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    cache = KernelCache(blocker / "kernels")
    (key,) = keys(1)
    with caplog.at_level(logging.WARNING):
        cache.store(key, BINARY)
    predictable = os.path.join(tempfile.gettempdir(), f"cldnn_py_kernels_{os.getuid()}")
    assert cache.directory != blocker / "kernels" and str(cache.directory) != predictable
    st = os.stat(cache.directory)
    assert stat.S_IMODE(st.st_mode) == 0o700 and st.st_uid == os.geteuid()
    assert cache.load(key) == BINARY and "cannot be written" in caplog.text
