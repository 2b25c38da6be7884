"""Helpers for the GPU-tier kernel tests: run_kernel_padded with Params of the gpu tier."""

from __future__ import annotations

import functools

import pytest

from kernel_selector import Params
from tests.ocl import padded


def run_gpu_padded(monkeypatch: pytest.MonkeyPatch, *args, **kwargs):
    """``tests.ocl.padded.run_kernel_padded`` with ``kernel_tier="gpu"`` Params (the engine's DeviceCaps)."""
    engine = args[0]
    monkeypatch.setattr(padded, "Params", functools.partial(Params, kernel_tier="gpu", caps=engine.info.caps))
    return padded.run_kernel_padded(*args, **kwargs)
