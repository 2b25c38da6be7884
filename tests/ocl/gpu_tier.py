"""Helpers for the GPU-tier kernel tests: run_kernel_padded with Params of the gpu tier."""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.ocl.padded import run_kernel_padded


def run_gpu_padded(monkeypatch: Any, *args: Any, **kwargs: Any) -> np.ndarray:
    """``tests.ocl.padded.run_kernel_padded`` with ``kernel_tier="gpu"`` Params (``monkeypatch`` is unused; kept
    for the callers' signature)."""
    return run_kernel_padded(*args, kernel_tier="gpu", **kwargs)
