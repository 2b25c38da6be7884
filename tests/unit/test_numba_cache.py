"""The numba cache folder is keyed by the code numba kernels call across modules (kernel_selector.common.numba_cache):
numba itself would keep stale machine code when only a callee in another file changed."""

from __future__ import annotations

import shutil

from kernel_selector.common import numba_cache


def test_digest_follows_the_shared_sources(tmp_path, monkeypatch):
    pkg = tmp_path / "kernel_selector" / "common"
    ops = tmp_path / "cldnn_py" / "ops"
    pkg.mkdir(parents=True)
    ops.mkdir(parents=True)
    for f in numba_cache._HERE.glob("*.py"):
        shutil.copy(f, pkg / f.name)
    shutil.copy(numba_cache._HERE.parents[1] / "cldnn_py" / "ops" / "elementwise.py", ops / "elementwise.py")
    monkeypatch.setattr(numba_cache, "_HERE", pkg)
    before = numba_cache.shared_code_digest()
    assert before == numba_cache.shared_code_digest()  # deterministic
    (ops / "elementwise.py").write_text((ops / "elementwise.py").read_text() + "\n# a changed formula\n")
    changed_table = numba_cache.shared_code_digest()
    (pkg / "cpu_epilogue.py").write_text((pkg / "cpu_epilogue.py").read_text() + "\n# a changed epilogue\n")
    assert len({before, changed_table, numba_cache.shared_code_digest()}) == 3


def test_the_user_folder_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert numba_cache.configure_numba_cache() == str(tmp_path)
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    got = numba_cache.configure_numba_cache()
    assert got.endswith(numba_cache.shared_code_digest())


def test_the_fma_rate_override_gets_its_own_folder(monkeypatch):
    """CLDNN_PY_CPU_FULL_512 changes the tiles compiled into the kernels, not their source: its own cache folder,
    so a cached kernel of the other tile is never loaded."""
    import sys

    config = sys.modules.get("numba.core.config")
    if config is not None:  # configure_numba_cache points numba's own setting at the folder: restored after the test
        monkeypatch.setattr(config, "CACHE_DIR", getattr(config, "CACHE_DIR", ""), raising=False)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.delenv("CLDNN_PY_CPU_FULL_512", raising=False)
    plain = numba_cache.configure_numba_cache()
    folders = {plain}
    for value in ("0", "1"):
        monkeypatch.delenv("NUMBA_CACHE_DIR")
        monkeypatch.setenv("CLDNN_PY_CPU_FULL_512", value)
        got = numba_cache.configure_numba_cache()
        assert got.endswith(f"{numba_cache.shared_code_digest()}-full512-{value}")
        folders.add(got)
    assert len(folders) == 3


def test_openmp_first_unless_the_user_chose_a_layer(monkeypatch, tmp_path):
    """The workqueue layer costs 70-150 us per parallel region: OpenMP is preferred, with a short spin, unless the
    user named a layer or a priority (then nothing of theirs changes)."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    for var in ("NUMBA_THREADING_LAYER", "NUMBA_THREADING_LAYER_PRIORITY", "GOMP_SPINCOUNT"):
        monkeypatch.delenv(var, raising=False)
    numba_cache.configure_numba_cache()
    import os

    assert os.environ["NUMBA_THREADING_LAYER_PRIORITY"].split()[0] == "omp"
    assert os.environ["GOMP_SPINCOUNT"] == numba_cache.GOMP_SPIN
    monkeypatch.delenv("NUMBA_THREADING_LAYER_PRIORITY")
    monkeypatch.setenv("NUMBA_THREADING_LAYER", "workqueue")
    monkeypatch.setenv("GOMP_SPINCOUNT", "7")
    numba_cache.configure_numba_cache()
    assert "NUMBA_THREADING_LAYER_PRIORITY" not in os.environ
    assert os.environ["NUMBA_THREADING_LAYER"] == "workqueue" and os.environ["GOMP_SPINCOUNT"] == "7"


def _fresh_process(tmp_path, code: str) -> str:
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    root = numba_cache._HERE.parents[1]
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True,
                          check=True, timeout=120).stdout.strip()


def test_a_common_module_imported_first_caches_in_the_keyed_folder(tmp_path):
    """Importing a kernel_selector.common module that uses numba (as the CPU epilogue tests do) before any kernel
    still sends numba's cache to the keyed folder, never to __pycache__ beside the sources (stale code ran there)."""
    out = _fresh_process(tmp_path, "import kernel_selector.common.cpu_epilogue\n"
                                   "from numba.core import config; print(config.CACHE_DIR)")
    assert out.startswith(str(tmp_path)) and out.endswith(numba_cache.shared_code_digest())


def test_numba_imported_by_the_user_first_still_gets_the_keyed_folder(tmp_path):
    out = _fresh_process(tmp_path, "import numba\nimport kernel_selector.common.cpu_epilogue\n"
                                   "from numba.core import config; print(config.CACHE_DIR)")
    assert out.startswith(str(tmp_path)) and out.endswith(numba_cache.shared_code_digest())
