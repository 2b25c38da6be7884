"""copy_span (kernel_selector/common/cpu_span_copy.py): whole vectors plus a masked tail move exactly ``n`` floats,
at any offsets, up to the very end of both arrays, and write nothing outside the span."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from kernel_selector.common.cpu_microkernel import W
from kernel_selector.common.cpu_span_copy import copy_span


@numba.njit(cache=False)
def _copy(dst, d0, src, s0, n):  # pragma: no cover - numba
    copy_span(dst, d0, src, s0, n)


@pytest.mark.parametrize("n", [0, 1, W - 1, W, W + 1, 2 * W + 3, 4 * W, 5 * W - 1])
def test_copy_span_exact_span(rng, n):
    src = rng.standard_normal(n + 37).astype(np.float32)
    for s0, d0 in ((0, 0), (37, 5), (3, 11)):
        dst = np.full(n + 29, np.nan, np.float32)
        _copy(dst, d0, src, s0, n)
        want = np.full_like(dst, np.nan)
        want[d0:d0 + n] = src[s0:s0 + n]
        np.testing.assert_array_equal(dst, want)  # the span copied, NaN poison left everywhere else


def test_copy_span_to_the_end_of_both_arrays(rng):
    """The masked tail neither reads nor writes past an array's last element (a span that ends there)."""
    n = 2 * W + 5
    src = rng.standard_normal(n).astype(np.float32)
    dst = np.full(n, np.nan, np.float32)
    _copy(dst, 0, src, 0, n)
    np.testing.assert_array_equal(dst, src)
