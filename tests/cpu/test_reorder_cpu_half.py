"""reorder_cpu_half (f32 <-> f16 in one plain format, unpadded: the converting reorders of inference_precision="f16"
on the CPU engine) vs references that do not use numpy's half cast: f32 -> f16 rounds to the nearest half found by
search over every finite half (ties to the even bit pattern, from 65520 on to infinity, NaN stays NaN); f16 -> f32
of every one of the 65536 half bit patterns is the half's exact value. The output is poisoned with NaN first; the
selector must pick the kernel unforced; a format change and a padded tensor go to reorder_cpu_ref."""

from __future__ import annotations

import numpy as np
import pytest

from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import ReorderAttrs
from kernel_selector.params import Params
from kernel_selector.selector import selector
from tests.cpu.kernel_harness import run_kernel

KERNEL = "reorder_cpu_half"
F16, F32 = DataType.f16, DataType.f32
FINITE = np.arange(0x7C00, dtype=np.uint16).view(np.float16).astype(np.float64)  # every finite half >= 0, rising


def nearest_half(x: np.ndarray) -> np.ndarray:
    """float64 values of ``x`` rounded to half: nearest of FINITE by search, a tie to the even bit pattern,
    |x| >= 65520 (65504 plus half its spacing) to infinity, NaN to NaN."""
    a = np.abs(x.astype(np.float64))
    i = np.clip(np.searchsorted(FINITE, a), 1, FINITE.size - 1)
    lo, hi = FINITE[i - 1], FINITE[i]
    pick_hi = (hi - a < a - lo) | ((hi - a == a - lo) & (i % 2 == 0))
    r = np.where(pick_hi, hi, lo)
    r = np.where(a >= 65520.0, np.inf, r)
    return np.where(np.isnan(a), np.nan, np.copysign(r, x))


def _run(cpu_engine, x: np.ndarray, src: DataType, dst: DataType, fmt: Format = Format.bfyx):
    attrs = {"format": fmt, "dtype": dst}
    return run_kernel(cpu_engine, "reorder", [Layout(src, fmt, x.shape)], Layout(dst, fmt, x.shape), attrs,
                      [x], KERNEL)


@pytest.mark.parametrize("fmt", [Format.bfyx, Format.byxf])
def test_f32_to_f16_rounds_to_nearest_even(cpu_engine, rng, fmt):
    x = (rng.standard_normal((2, 5, 3, 7)) * np.exp2(rng.integers(-26, 17, (2, 5, 3, 7)))).astype(np.float32)
    special = [np.inf, -np.inf, np.nan, 65519.99, 65520.0, -7e4, 1 + 2.0**-11, 1 + 3 * 2.0**-11, 2.0**-25,
               3 * 2.0**-26, -2.0**-26, 0.0, -0.0, 2.0**-24 * 1.5]
    x.reshape(-1)[:len(special)] = special
    out, chosen = _run(cpu_engine, x, F32, F16, fmt)
    assert chosen == KERNEL and out.dtype == np.float16
    np.testing.assert_array_equal(out.astype(np.float64), nearest_half(x))
    assert (np.signbit(out) == np.signbit(x))[~np.isnan(x)].all()


def test_f16_to_f32_is_exact_for_every_half(cpu_engine):
    bits = np.arange(1 << 16, dtype=np.uint16).reshape(1, 4, 128, 128)
    out, chosen = _run(cpu_engine, bits.view(np.float16), F16, F32)
    assert chosen == KERNEL and out.dtype == np.float32
    mant, exp = (bits & 0x3FF).astype(np.float64), (bits >> 10) & 0x1F
    val = np.where(exp == 0, mant * 2.0**-24, (1 + mant / 1024) * np.exp2(exp.astype(np.float64) - 15))
    val = np.where(exp == 31, np.where(mant == 0, np.inf, np.nan), val)
    val = np.where(bits >> 15 == 1, -val, val)
    with np.errstate(invalid="ignore"):  # the signaling NaNs among the halves stay signaling in float32
        np.testing.assert_array_equal(out.astype(np.float64), val)
    assert (np.signbit(out) == (bits >> 15 == 1)).all()


@pytest.mark.parametrize("src, dst, why", [
    (Layout(F32, Format.bfyx, (1, 4, 2, 2)), Layout(F16, Format.byxf, (1, 4, 2, 2)), "format change"),
    (Layout(F16, Format.b_fs_yx_fsv16, (1, 4, 2, 2)), Layout(F32, Format.b_fs_yx_fsv16, (1, 4, 2, 2)), "blocked"),
    (Layout(F32, Format.bfyx, (1, 4, 2, 2), Padding((0, 0, 1, 0), (0, 0, 0, 0))),
     Layout(F16, Format.bfyx, (1, 4, 2, 2)), "padded"),
    (Layout(F32, Format.bfyx, (1, 4)), Layout(F32, Format.bfyx, (1, 4)), "no f16 side"),
])
def test_other_reorders_are_refused(cpu_engine, src, dst, why):
    p = Params("reorder", "cpu", [src], dst, ReorderAttrs(dst.format, dst.dtype), device=cpu_engine.info)
    verdicts = {v.kernel: v.reason for v in selector.explain(p)}
    assert why in (verdicts[KERNEL] or "")
    assert selector.select(p)[0].name != KERNEL
