"""The kernel binary cache (cldnn_py/kernel_cache.py): a second Engine builds from stored binaries, a corrupt entry is
rebuilt (never fatal), the cache can be turned off, an unwritable folder falls back, and keys see what matters.
The binary path is forced on (``CLDNN_PY_BINARY_CACHE=1``) because on PoCL, by default, builds are left to PoCL's
own cache; ``test_pocl_builds_are_left_to_pocl_cache`` checks that default."""

from __future__ import annotations

import dataclasses
import logging

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.kernel_cache import MAGIC, KernelCache
from tests.helpers import assert_close, f32


@pytest.fixture(autouse=True)
def _store_binaries(monkeypatch):
    monkeypatch.setenv("CLDNN_PY_BINARY_CACHE", "1")


def relu_topology(shape):
    t = cl.Topology()
    t.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape)))
    t.add(cl.Activation("a", "x", func="elu"))
    t.add(cl.Activation("b", "a", func="tanh"))
    return t


def run(engine, rng):
    x = f32(rng.standard_normal((1, 3, 5, 7)))
    net = cl.Network(engine, relu_topology(x.shape), cl.BuildOptions(optimize_data=False))
    net.poison()
    assert_close(net.run({"x": x})["b"], np.tanh(np.where(x >= 0, x, np.expm1(x.astype(np.float64)))))
    return net


def test_second_engine_builds_from_the_cache(tmp_path, rng):
    first = cl.Engine(cache_dir=str(tmp_path))
    run(first, rng)
    assert first.kernel_cache.misses >= 1 and first.kernel_cache.hits == 0
    assert first.kernel_cache.info()["entries"] >= 1
    second = cl.Engine(cache_dir=str(tmp_path))
    run(second, rng)
    assert second.kernel_cache.hits >= 1 and second.kernel_cache.misses == 0


def test_corrupt_entry_is_rebuilt_not_fatal(tmp_path, rng, caplog):
    run(cl.Engine(cache_dir=str(tmp_path)), rng)
    entries = list(tmp_path.glob("*/*.bin"))
    for f in entries:
        data = f.read_bytes()
        f.write_bytes(data[: len(data) // 2])  # truncated, as by a crash mid-write without the atomic rename
    with caplog.at_level(logging.WARNING, logger="cldnn_py.kernel_cache"):
        engine = cl.Engine(cache_dir=str(tmp_path))
        run(engine, rng)
    assert "is corrupt" in caplog.text and engine.kernel_cache.rejected >= 1
    assert all(f.read_bytes().startswith(MAGIC) and len(f.read_bytes()) > 40 for f in tmp_path.glob("*/*.bin"))
    engine2 = cl.Engine(cache_dir=str(tmp_path))
    run(engine2, rng)
    assert engine2.kernel_cache.hits >= 1  # the rewritten entries are good


def test_binary_the_driver_rejects_is_rebuilt(tmp_path, rng):
    run(cl.Engine(cache_dir=str(tmp_path)), rng)
    cache = KernelCache(tmp_path)
    for f in tmp_path.glob("*/*.bin"):  # a valid envelope around garbage: only the driver can tell
        f.unlink()
        cache.store(f.stem, b"not a program binary" * 4)
    engine = cl.Engine(cache_dir=str(tmp_path))
    run(engine, rng)
    assert engine.kernel_cache.rejected >= 1


def test_cache_off_and_unwritable_folder(tmp_path, rng, monkeypatch, caplog):
    monkeypatch.setenv("CLDNN_PY_NO_CACHE", "1")
    off = cl.Engine(cache_dir=str(tmp_path / "off"))
    run(off, rng)
    assert not (tmp_path / "off").exists() and off.kernel_cache.hits == 0
    monkeypatch.delenv("CLDNN_PY_NO_CACHE")
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    with caplog.at_level(logging.WARNING, logger="cldnn_py.kernel_cache"):
        eng = cl.Engine(cache_dir=str(blocker / "kernels"))
        run(eng, rng)
    assert "cannot be written" in caplog.text and eng.kernel_cache.directory != blocker / "kernels"


def test_key_sees_source_options_and_device(ocl_engine):
    info = ocl_engine.info
    k = KernelCache.key("src", [], info)
    assert k != KernelCache.key("src2", [], info) and k != KernelCache.key("src", ["-cl-fast-relaxed-math"], info)
    assert k == KernelCache.key("src", [], info) and len(k) == 64
    # the same device name and versions with another native vector width (AVX-512 shown or hidden by the VM)
    other = dataclasses.replace(info, caps=dataclasses.replace(
        info.caps, native_vector_width_float=24 - int(info.caps.native_vector_width_float)))
    assert KernelCache.key("src", [], other) != k


def test_pocl_cache_goes_under_ours_unless_set(tmp_path):
    import os
    import subprocess
    import sys

    code = ("import os, cldnn_py as cl; cl.list_devices(); print(os.environ['POCL_CACHE_DIR'])")
    env = {k: v for k, v in os.environ.items() if k not in ("POCL_CACHE_DIR", "CLDNN_PY_NO_CACHE")}
    env["CLDNN_PY_CACHE_DIR"] = str(tmp_path / "kc")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(tmp_path / "kc" / "pocl")
    env["POCL_CACHE_DIR"] = str(tmp_path / "mine")  # the user's choice wins
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(tmp_path / "mine")


def test_pocl_builds_are_left_to_pocl_cache(tmp_path, rng, monkeypatch):
    monkeypatch.delenv("CLDNN_PY_BINARY_CACHE")
    eng = cl.Engine(cache_dir=str(tmp_path))
    assert eng.kernel_cache.binaries is not ("Portable Computing Language" in eng.info.platform)
    if eng.kernel_cache.binaries:
        pytest.skip(f"not a PoCL device ({eng.info.platform}): binaries are cached, as tested above")
    run(eng, rng)
    assert eng.kernel_cache.info()["entries"] == 0 and eng.kernel_cache.hits == 0
    again = cl.Engine(cache_dir=str(tmp_path))
    run(again, rng)  # built again, through PoCL's cache
    assert again.kernel_cache.hits == 0


@pytest.mark.parametrize("value,driver_caches,expected", [
    (None, True, False), (None, False, True), ("auto", True, False), ("1", True, True), ("0", False, False)])
def test_binary_cache_setting(monkeypatch, value, driver_caches, expected):
    from cldnn_py.kernel_cache import binary_cache

    if value is None:
        monkeypatch.delenv("CLDNN_PY_BINARY_CACHE", raising=False)
    else:
        monkeypatch.setenv("CLDNN_PY_BINARY_CACHE", value)
    assert binary_cache(driver_caches) is expected


def test_first_engine_puts_pocl_cache_under_its_cache_dir(tmp_path):
    import os
    import subprocess
    import sys

    code = ("import os, cldnn_py as cl; e = cl.Engine(cache_dir=os.environ['DIR']); cl.Engine(); "
            "print(os.environ['POCL_CACHE_DIR']); print(e.info.platform)")
    env = {k: v for k, v in os.environ.items() if k not in ("POCL_CACHE_DIR", "CLDNN_PY_NO_CACHE")}
    env["DIR"] = str(tmp_path / "mine")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    pocl_dir, platform = out.stdout.strip().splitlines()
    assert pocl_dir == str(tmp_path / "mine" / "pocl")  # set on any device: PoCL reads it if it is there at all
    if "Portable Computing Language" not in platform:
        pytest.skip(f"the engine's platform is not PoCL ({platform}): no PoCL compiled anything into the folder")
    assert (tmp_path / "mine" / "pocl").is_dir()  # PoCL created and used it


def test_engine_refuses_a_cache_folder_others_can_write(tmp_path, rng, caplog):
    import os

    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    with caplog.at_level(logging.WARNING, logger="cldnn_py.safe_dirs"):
        engine = cl.Engine(cache_dir=str(shared))
    assert engine.kernel_cache.directory != shared and f"{shared} has mode 0o777" in caplog.text
    run(engine, rng)  # builds and runs all the same, with the private temporary folder
    assert list(shared.iterdir()) == []
