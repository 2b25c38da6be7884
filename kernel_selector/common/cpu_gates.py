"""Helpers of the CPU engine's recurrent loops (numba): the gate pre-activation clip of ONNX LSTM / GRU."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

RECURRENT_FASTMATH = {"nnan", "ninf", "nsz", "contract", "afn", "reassoc"}
"""The numba fastmath flags of the recurrent loops: ``fastmath=True`` without ``arcp``. With ``arcp`` LLVM may turn
the gates' 1 / (1 + exp(-x)) into an approximate reciprocal: on a host whose AVX-512 numba targets (a Zen 4 VM that
shows it) that was ``vrcp14ps`` and a Newton step, one ulp of 1.0 off, and ONNX's GRU conformance cases (atol 1e-7
on states near zero) failed there while they passed on AVX2 hosts (2026-12-07)."""


@numba.njit(cache=True, fastmath=RECURRENT_FASTMATH)
def gate_clip(v: Any, clip: float) -> Any:
    """``v`` (a float32 array) clamped to [-clip, clip] when ``clip`` > 0 (ONNX ``clip``), else ``v`` itself."""
    return np.minimum(np.maximum(v, np.float32(-clip)), np.float32(clip)) if clip > 0.0 else v
