"""Helpers of the CPU engine's recurrent loops (numba): the gate pre-activation clip of ONNX LSTM / GRU."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np


@numba.njit(cache=True, fastmath=True)
def gate_clip(v: Any, clip: float) -> Any:
    """``v`` (a float32 array) clamped to [-clip, clip] when ``clip`` > 0 (ONNX ``clip``), else ``v`` itself."""
    return np.minimum(np.maximum(v, np.float32(-clip)), np.float32(clip)) if clip > 0.0 else v
