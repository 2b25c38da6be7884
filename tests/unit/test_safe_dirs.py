"""Private cache folders (cldnn_py/safe_dirs.py) and where they are applied to PoCL's cache (kernel_cache.py):
folders are created 0700, a folder another user owns or others can write is refused with a warning naming it and
the reason and replaced by a private temporary folder, no symbolic link leads out of a cache, and a FIFO or a link
planted as a file is refused without blocking. No device needed; every folder is under tmp_path."""

from __future__ import annotations

import logging
import os
import stat

import pytest

from cldnn_py import safe_dirs
from cldnn_py.kernel_cache import configure_pocl_cache
from cldnn_py.safe_dirs import private_dir, private_subdir, read_regular_file, unsafe_reason

pytestmark = pytest.mark.skipif(os.name != "posix", reason="owners and modes are POSIX")


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_missing_folders_are_created_private_parents_too(tmp_path):
    got = private_dir(tmp_path / "a" / "b", "kernel cache")
    assert got == tmp_path / "a" / "b"
    assert mode(tmp_path / "a") == 0o700 and mode(tmp_path / "a" / "b") == 0o700


def test_a_users_own_0755_folder_is_kept(tmp_path, caplog):
    (tmp_path / "mine").mkdir(mode=0o755)
    os.chmod(tmp_path / "mine", 0o755)
    with caplog.at_level(logging.WARNING, logger="cldnn_py.safe_dirs"):
        assert private_dir(tmp_path / "mine", "kernel cache") == tmp_path / "mine"
    assert not caplog.records and mode(tmp_path / "mine") == 0o755  # left as the user made it


@pytest.mark.parametrize("bits", [0o775, 0o757, 0o777])
def test_a_folder_others_can_write_is_refused_for_a_private_temporary_one(tmp_path, caplog, bits):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, bits)
    with caplog.at_level(logging.WARNING, logger="cldnn_py.safe_dirs"):
        got = private_dir(shared, "kernel cache")
    assert got != shared and got.is_dir() and mode(got) == 0o700 and os.stat(got).st_uid == os.geteuid()
    assert str(shared) in caplog.text and oct(bits) in caplog.text and "group or others can write" in caplog.text
    assert private_dir(shared, "kernel cache") == got  # one fallback per folder per process, warned once
    assert len(caplog.records) == 1


def test_a_folder_of_another_user_is_refused(tmp_path, caplog, monkeypatch):
    monkeypatch.setattr(safe_dirs, "current_uid", lambda: os.geteuid() + 4242)
    assert f"owned by uid {os.geteuid()}" in str(unsafe_reason(tmp_path))
    with caplog.at_level(logging.WARNING, logger="cldnn_py.safe_dirs"):
        got = private_dir(tmp_path / "theirs", "kernel cache")
    assert got != tmp_path / "theirs"
    assert f"is owned by uid {os.geteuid()}, not by the current user (uid {os.geteuid() + 4242})" in caplog.text


def test_a_symbolic_link_inside_a_cache_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir(mode=0o700)
    cache = private_dir(tmp_path / "cache", "kernel cache")
    (cache / "ab").symlink_to(outside)
    assert private_subdir(cache, "ab") is None
    assert unsafe_reason(cache / "ab", follow_symlinks=False) == "is a symbolic link"
    assert private_dir(cache / "ab", "PoCL cache", follow_symlinks=False) != cache / "ab"
    assert private_subdir(cache, "cd") == cache / "cd" and mode(cache / "cd") == 0o700


def test_only_regular_files_are_read_without_blocking(tmp_path):
    target = tmp_path / "target"
    target.write_bytes(b"payload")
    assert read_regular_file(target) == b"payload"
    (tmp_path / "link").symlink_to(target)
    with pytest.raises(OSError):
        read_regular_file(tmp_path / "link")
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(OSError, match="not a regular file"):
        read_regular_file(tmp_path / "fifo")  # O_NONBLOCK: returns at once with no writer
    with pytest.raises(FileNotFoundError):
        read_regular_file(tmp_path / "absent")


@pytest.fixture
def no_pocl_env(monkeypatch):
    """configure_pocl_cache acts only when POCL_CACHE_DIR and CLDNN_PY_NO_CACHE are unset; monkeypatch restores the
    worker's POCL_CACHE_DIR afterwards."""
    monkeypatch.delenv("POCL_CACHE_DIR", raising=False)
    monkeypatch.delenv("CLDNN_PY_NO_CACHE", raising=False)


def test_pocl_cache_is_created_private_under_ours(tmp_path, no_pocl_env):
    configure_pocl_cache(str(tmp_path / "kc"))
    assert os.environ["POCL_CACHE_DIR"] == str(tmp_path / "kc" / "pocl")
    assert mode(tmp_path / "kc") == 0o700 and mode(tmp_path / "kc" / "pocl") == 0o700


def test_pocl_cache_in_a_writable_by_others_folder_is_refused(tmp_path, no_pocl_env, caplog):
    shared = tmp_path / "shared"
    (shared / "pocl").mkdir(parents=True)
    os.chmod(shared, 0o777)
    with caplog.at_level(logging.WARNING, logger="cldnn_py.safe_dirs"):
        configure_pocl_cache(str(shared))
    assert not os.environ["POCL_CACHE_DIR"].startswith(str(shared)) and str(shared) in caplog.text


def test_pocl_cache_that_is_a_symbolic_link_is_refused(tmp_path, no_pocl_env, caplog):
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    (tmp_path / "kc").mkdir(mode=0o700)
    (tmp_path / "kc" / "pocl").symlink_to(tmp_path / "elsewhere")
    with caplog.at_level(logging.WARNING, logger="cldnn_py.safe_dirs"):
        configure_pocl_cache(str(tmp_path / "kc"))
    assert os.environ["POCL_CACHE_DIR"] not in (str(tmp_path / "kc" / "pocl"), str(tmp_path / "elsewhere"))
    assert "is a symbolic link" in caplog.text


def test_numba_cache_folder_others_can_write_is_refused(tmp_path, monkeypatch):
    """numba loads pickled index files from its cache: a default folder others can write is not used."""
    import os
    import stat

    from kernel_selector.common.numba_cache import configure_numba_cache, shared_code_digest

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    bad = tmp_path / "cldnn_py" / "numba" / shared_code_digest()
    bad.mkdir(parents=True)
    bad.chmod(0o777)
    got = configure_numba_cache()
    assert os.path.realpath(got) != os.path.realpath(bad)
    assert stat.S_IMODE(os.stat(got).st_mode) == 0o700
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    good = tmp_path / "fresh"
    monkeypatch.setenv("XDG_CACHE_HOME", str(good))
    got = configure_numba_cache()
    assert got == str(good / "cldnn_py" / "numba" / shared_code_digest())
    assert stat.S_IMODE(os.stat(got).st_mode) == 0o700
