"""Fixtures of the CPU engine's kernel tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def cpu_engine():
    """The CPU (numba) engine, one per test worker."""
    import cldnn_py as cl

    return cl.Engine("cpu")
