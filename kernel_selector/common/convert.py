"""Numeric conversion between data types on the CPU engine (reorder_cpu_ref, eltwise_cpu_ref)."""

from __future__ import annotations

import numpy as np


def convert(x: np.ndarray, to: np.dtype, mode: str) -> np.ndarray:
    """``x`` in type ``to`` with the semantics of ``reorder_ref``: "round" rounds to nearest even and saturates into
    an integer type, "truncate" rounds float toward zero (saturating) and wraps integer to narrower integer (a C
    cast), "bool" is 1 where x != 0; to float is a cast."""
    to = np.dtype(to)
    if mode == "bool":
        return (x != 0).astype(to)
    if to.kind == "f":
        return x.astype(to)
    info = np.iinfo(to)
    if x.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            x64 = x.astype(np.float64)  # float32 cannot hold 2^31 - 1: clip where the bounds are exact
            r = np.rint(x64) if mode == "round" else np.trunc(x64)
            r = np.where(np.isnan(r), 0, np.clip(r, info.min, info.max))  # OpenCL _sat: NaN -> 0
        return r.astype(to)
    if mode == "round":
        return np.clip(x.astype(np.int64), info.min, info.max).astype(to)
    return x.astype(to)  # integer -> integer C cast (wraps)
