"""The cldnn-py command line."""

from __future__ import annotations

from cldnn_py.cli import main


def test_devices_lists_the_default_device(capsys):
    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("cl:0:0") and "max alloc" in out


def test_version(capsys):
    assert main(["version"]) == 0
    assert "cldnn_py 0.1.0" in capsys.readouterr().out
