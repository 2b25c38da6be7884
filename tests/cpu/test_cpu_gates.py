"""The recurrent loops' gate functions (cpu_fastmath.logistic_f32 / tanh_f32): accuracy against float64 numpy on
seeded random inputs, special values, and their loops compiled to vector code without libm calls (under the
recurrent kernels' fastmath flags and numpy error model, as the LSTM / GRU loops compile them)."""

from __future__ import annotations

import re

import numba
import numpy as np
import pytest

from kernel_selector.common.cpu_fastmath import logistic_f32, tanh_f32
from kernel_selector.common.cpu_gates import RECURRENT_FASTMATH


def _loops():
    def tanh_loop(x, o):  # pragma: no cover - numba
        for i in range(x.shape[0]):
            o[i] = tanh_f32(x[i])

    def logistic_loop(x, o):  # pragma: no cover - numba
        for i in range(x.shape[0]):
            o[i] = logistic_f32(x[i])

    jit = numba.njit(fastmath=RECURRENT_FASTMATH, error_model="numpy")
    return {"tanh": (jit(tanh_loop), np.tanh), "logistic": (jit(logistic_loop), lambda v: 1 / (1 + np.exp(-v)))}


LOOPS = _loops()


def _inputs(seed):
    rng = np.random.default_rng(seed)
    tiny = rng.uniform(-30, 0, 20_000)
    return np.concatenate([rng.uniform(-30, 30, 200_001), 10.0 ** tiny, -(10.0 ** tiny),
                           rng.uniform(-0.7, 0.7, 50_000)]).astype(np.float32)


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_gate_function_within_a_few_ulp(name):
    fn, ref_fn = LOOPS[name]
    x = _inputs(11)
    o = np.full_like(x, np.nan)
    fn(x, o)
    ref = ref_fn(x.astype(np.float64))
    ulp = np.abs(o - ref) / np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    finite = ref != 0  # logistic underflows to 0 below -88.7 (the ulp of 0 is the smallest subnormal)
    assert ulp[finite].max() <= 4, (name, ulp[finite].max(), x[finite][np.argmax(ulp[finite])])
    assert np.abs(o - ref).max() <= 1.2e-7


def test_gate_function_special_values():
    fn_t, _ = LOOPS["tanh"]
    fn_s, _ = LOOPS["logistic"]
    x = np.array([0.0, -0.0, 50.0, -50.0, 1e30, -1e30, 100.0, -100.0], np.float32)
    t, s = np.empty_like(x), np.empty_like(x)
    fn_t(x, t)
    fn_s(x, s)
    np.testing.assert_array_equal(t, [0, 0, 1, -1, 1, -1, 1, -1])
    np.testing.assert_array_equal(s[[0, 1, 2, 4, 5, 6, 7]], [0.5, 0.5, 1, 1, 0, 1, 0])
    np.testing.assert_allclose(s[3], np.exp(-50.0), rtol=1e-6)  # not flushed: e^-50 is a normal float


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_gate_loop_is_vector_code(name):
    fn, _ = LOOPS[name]
    x = np.linspace(-3, 3, 64, dtype=np.float32)
    fn(x, np.empty_like(x))  # compiled here too: under xdist the accuracy test may have run on another worker
    asm = fn.inspect_asm(fn.signatures[0])
    assert not re.search(r"call\w*\s+\S*(expf|tanhf|exp|tanh)\b", asm)
    assert re.search(r"vfmadd\w*ps\s+%[yz]mm", asm)
