"""configure_cpu_pinning: sets POCL_AFFINITY=1 by default, never overrides the user's POCL_AFFINITY, and stays off
with CLDNN_PY_CPU_PINNING=0 (each case in a clean environment: monkeypatch restores it)."""

from __future__ import annotations

import os

import pytest

from cldnn_py.cpu_pinning import configure_cpu_pinning


def test_pins_by_default(monkeypatch):
    monkeypatch.delenv("POCL_AFFINITY", raising=False)
    monkeypatch.delenv("CLDNN_PY_CPU_PINNING", raising=False)
    assert configure_cpu_pinning() is True
    assert os.environ["POCL_AFFINITY"] == "1"


@pytest.mark.parametrize("value", ["0", "off", "false", "no"])
def test_off_leaves_pocl_alone(monkeypatch, value):
    monkeypatch.delenv("POCL_AFFINITY", raising=False)
    monkeypatch.setenv("CLDNN_PY_CPU_PINNING", value)
    assert configure_cpu_pinning() is False
    assert "POCL_AFFINITY" not in os.environ


@pytest.mark.parametrize(("user", "pinned"), [("0", False), ("1", True)])
def test_user_setting_wins(monkeypatch, user, pinned):
    monkeypatch.setenv("POCL_AFFINITY", user)
    monkeypatch.setenv("CLDNN_PY_CPU_PINNING", "1" if user == "0" else "0")
    assert configure_cpu_pinning() is pinned
    assert os.environ["POCL_AFFINITY"] == user
