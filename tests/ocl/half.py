"""f16 (half storage) kernel tests: the same kernel run with every float tensor stored as half.

A kernel that declares ``FLOATS`` (kernel_selector.params) reads and writes through the jitter's ``NAME_LOAD`` /
``NAME_STORE`` macros and computes in float. Its f16 test feeds inputs already rounded to half (so the float64
reference sees exactly what the kernel read), forces the kernel, poisons the output (NaN, padding with a sentinel:
:func:`tests.ocl.padded.run_kernel_padded`) and compares with the float64 reference within the rounding of one
half store (2^-11 relative) plus float32 accumulation.
"""

from __future__ import annotations

import numpy as np

import cldnn_py as cl
from tests.ocl.padded import run_kernel_padded

HALF_RTOL = 2e-3
"""Relative tolerance of an f16 output: one rounding to half (4.9e-4) with room for float32 accumulation."""


def to_half(layout: cl.Layout) -> cl.Layout:
    """``layout`` with f16 storage when it is f32 (integer layouts, e.g. indices, unchanged)."""
    return layout.with_(dtype=cl.DataType.f16) if layout.dtype == cl.DataType.f32 else layout


def half_values(a: np.ndarray) -> np.ndarray:
    """A float array rounded to half (returned as float16); integer arrays unchanged."""
    return a.astype(np.float16) if a.dtype.kind == "f" else a


def run_kernel_half(engine, kind: str, inputs: list, output, attrs, arrays: list[np.ndarray], kernel: str,
                    half_output: bool = True, **kw) -> tuple[np.ndarray, list[np.ndarray]]:
    """Run ``kernel`` on f16 copies of ``inputs`` (layouts) and ``arrays``; the output f16 too unless
    ``half_output`` is False. Returns (logical output, the inputs as float64 values the kernel read)."""
    lin = [to_half(x) for x in inputs]
    lout = to_half(output) if half_output else output
    vals = [half_values(a) for a in arrays]
    out = run_kernel_padded(engine, kind, lin, lout, attrs, vals, kernel=kernel, **kw)
    return out, [v.astype(np.float64) if v.dtype.kind == "f" else v for v in vals]


def assert_half_close(out: np.ndarray, ref: np.ndarray, rtol: float = HALF_RTOL, atol: float | None = None) -> None:
    """``out`` (an f16 or f32 result) within ``rtol`` of the float64 ``ref`` (``atol``: by default ``rtol`` times
    the largest reference magnitude, for values that cancel), with no NaN the reference lacks (an unwritten
    element)."""
    assert out.shape == ref.shape, f"shape {out.shape} != {ref.shape}"
    assert not (np.isnan(out) & ~np.isnan(ref)).any(), "NaN in output: an element was not written"
    scale = float(np.nanmax(np.abs(ref))) if ref.size else 1.0
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=rtol, atol=rtol * scale if atol is None else atol)
