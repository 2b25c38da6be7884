"""The one elementwise table (cldnn_py/ops/elementwise.py): its numpy and numba renderers against the float64
references of tests/references.py on fresh random data, and its parser's errors. The OpenCL renderer is checked by
the kernel tests (tests/ocl/test_activation.py, test_eltwise.py) on both engines."""

from __future__ import annotations

import numpy as np
import pytest

from cldnn_py.ops import ACTIVATION_DEFAULTS, ActivationFunc, EltwiseMode
from cldnn_py.ops.elementwise import ACTIVATIONS, ELTWISE, cl_activation, cl_eltwise, parse, py_expr
from kernel_selector.common.elementwise_np import NP_ELTWISE, activation
from kernel_selector.common.elementwise_numba import ACT_CODES, ELT_CODES
from kernel_selector.common.elementwise_numba import activate as nb_activate
from kernel_selector.common.elementwise_numba import binary as nb_binary
from tests.references import COMPARISONS, ELTWISE_OPS, SELECTS, activation_ref

POSITIVE = {"log", "sqrt"}  # defined on x > 0 only


def _inputs(rng, func: str) -> np.ndarray:
    x = rng.standard_normal(257) * 3
    return np.abs(x) + 0.1 if func in POSITIVE else x


def _params(func: str) -> tuple[float, float]:
    return ACTIVATION_DEFAULTS.get(func, (0.0, 0.0))


def test_the_table_covers_every_enum_member_once():
    assert set(ACTIVATIONS) == {f.value for f in ActivationFunc}
    assert set(ELTWISE) == {m.value for m in EltwiseMode}
    assert len({d.code for d in ACTIVATIONS.values()}) == len(ACTIVATIONS)
    assert len({d.code for d in ELTWISE.values()}) == len(ELTWISE)


@pytest.mark.parametrize("func", sorted(ACTIVATIONS))
def test_numpy_and_numba_renderers_match_the_reference(rng, func):
    x = _inputs(rng, func).astype(np.float32)
    a, b = _params(func)
    want = activation_ref(x.astype(np.float64), func, a, b)
    got_np = activation(x, func, a, b)
    got_nb = np.array([nb_activate(float(v), ACT_CODES[func], a, b) for v in x])
    np.testing.assert_allclose(got_np, want, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(got_nb, want, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("mode", sorted(m for m in ELTWISE))
def test_eltwise_renderers_match_the_reference(rng, mode):
    a = rng.standard_normal(101) * 2
    b = rng.standard_normal(101) * 2
    if mode == "pow":
        a = np.abs(a) + 0.5
    if EltwiseMode(mode) in COMPARISONS:  # ties common, and a NaN (every comparison false, not_equal true)
        a, b = np.round(a), np.round(b)
        a[0] = np.nan
    if EltwiseMode(mode) in SELECTS:  # zero and non-zero conditions; an Inf in the operand stays unselected or not
        b = rng.integers(-1, 2, 101).astype(np.float64)
        a[:2], b[:2] = np.inf, [0.0, 1.0]
    want = ELTWISE_OPS[EltwiseMode(mode)](a, b)
    got_np = NP_ELTWISE[mode](a.astype(np.float32), b.astype(np.float32))
    got_nb = np.array([nb_binary(float(u), float(v), ELT_CODES[mode]) for u, v in zip(a, b)])
    np.testing.assert_allclose(got_np, want, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(got_nb, want, rtol=2e-5, atol=1e-6)


def test_opencl_text_substitutes_the_parameters():
    assert cl_activation("relu_negative_slope", 0.25, 0.0) == "(((x) >= 0.0f ? (x) : (0.25f) * (x)))"
    assert cl_eltwise("sum", "v", "w") == "v + w"
    assert cl_eltwise("max", "v", "w") == "fmax(v, w)"
    assert cl_eltwise("div", "v", "w", integer=True) == "eltwise_idiv(v, w)"


def test_parser_and_python_renderer():
    tree = parse("(x) > 0.0f ? A * (x) : -fmin(x, B)")
    assert py_expr(tree, {"A": "a", "B": "b"}, None) == "((a * x) if (x > 0.0) else (-fmin(x, b)))"
    with pytest.raises(ValueError, match="bad formula"):
        parse("x +* 1")
    with pytest.raises(ValueError, match="trailing"):
        parse("x 1")
