"""eltwise vs a float64 numpy reference: every mode folded left to right over 2-4 inputs, sum coefficients, numpy
broadcasting across ranks, formats (the output takes the first full-shape input's format), padded buffers; i32
inputs (exact integer math vs numpy int64), pow with an exponent of another data type, rank 5-6 outputs."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_kernel_padded
from tests.references import COMPARISONS, ELTWISE_OPS, eltwise_inputs, eltwise_ref

E = cl.EltwiseMode


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("mode", list(E), ids=lambda m: m.value)
@pytest.mark.parametrize("n_inputs", [2, 3])
def test_eltwise_modes_same_shape(engine, rng, mode, n_inputs):
    shapes = [(2, 5, 3, 4)] * n_inputs
    arrays = eltwise_inputs(rng, shapes, mode)
    names = [f"in{i}" for i in range(n_inputs)]
    out = run_single(engine, cl.Eltwise("elt", names, mode=mode), dict(zip(names, arrays)))
    assert_close(out, eltwise_ref(arrays, mode))


BCAST = [
    # shapes of the inputs (the output is their broadcast)
    [(2, 3, 4, 5), (1, 3, 1, 1)],
    [(1, 3, 1, 1), (2, 3, 4, 5)],           # the full-shape input second: output format from it
    [(2, 3, 4, 5), (5,), (4, 1)],           # ranks differ: trailing dims aligned
    [(2, 1, 4, 1), (1, 3, 1, 5)],           # both broadcast: output shape of neither
    [(3, 1, 5), (4, 1), (1,), (3, 4, 5)],   # rank 3 output, four inputs
    [(6, 7), (7,)],                         # rank 2
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("shapes", BCAST, ids=lambda s: "+".join("x".join(map(str, t)) for t in s))
@pytest.mark.parametrize("mode", [E.sub, E.div, E.max, E.pow, E.prelu])
def test_eltwise_broadcast(engine, rng, shapes, mode):
    arrays = eltwise_inputs(rng, shapes, mode)
    names = [f"in{i}" for i in range(len(shapes))]
    out = run_single(engine, cl.Eltwise("elt", names, mode=mode), dict(zip(names, arrays)))
    assert_close(out, eltwise_ref(arrays, mode))


@pytest.mark.parametrize("shapes", [[(2, 3, 2, 2)] * 3, [(1, 3, 1, 1), (2, 3, 4, 5), (5,)]], ids=["same", "bcast"])
def test_eltwise_sum_coefficients(engine, rng, shapes):
    arrays = eltwise_inputs(rng, shapes, E.sum)
    coeffs = [float(c) for c in rng.uniform(-2, 2, len(shapes))]
    names = [f"in{i}" for i in range(len(shapes))]
    out = run_single(engine, cl.Eltwise("elt", names, mode=E.sum, coefficients=coeffs), dict(zip(names, arrays)))
    assert_close(out, eltwise_ref(arrays, E.sum, coeffs))


@pytest.mark.parametrize("fmt", [cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
@pytest.mark.parametrize("shapes", [[(2, 18, 3, 4)] * 2, [(1, 18, 1, 1), (2, 18, 3, 4), (4,)]], ids=["same", "bcast"])
def test_eltwise_formats(engine, rng, fmt, shapes):
    """Every input in ``fmt``; the output takes the format of the first full-shape input."""
    arrays = eltwise_inputs(rng, shapes, E.prod)
    names = [f"in{i}" for i in range(len(shapes))]
    out = run_single(engine, cl.Eltwise("elt", names, mode=E.prod), dict(zip(names, arrays)), fmt=fmt,
                     out_fmt=cl.Format.bfyx)
    assert_close(out, eltwise_ref(arrays, E.prod))


def test_eltwise_mixed_formats(engine, rng):
    """A bfyx Data operand broadcast onto a b_fs_yx_fsv16 input; the output is b_fs_yx_fsv16."""
    x, c = f32(rng.standard_normal((2, 17, 3, 3))), f32(rng.standard_normal((17, 1, 1)))
    prim = cl.Eltwise("elt", ["c", "x"], mode=E.sub)
    out = run_single(engine, prim, {"x": x}, {"c": c}, fmt=cl.Format.b_fs_yx_fsv16, out_fmt=cl.Format.bfyx)
    assert_close(out, eltwise_ref([c, x], E.sub))


def test_eltwise_output_format_rule():
    """calc_output_layout: the first input whose shape is the output's gives the format."""
    f = cl.Layout
    a = f(cl.DataType.f32, cl.Format.byxf, (1, 3, 1, 1))
    b = f(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, (2, 3, 4, 5))
    assert cl.Eltwise("e", ["a", "b"]).calc_output_layout([a, b]).format == cl.Format.b_fs_yx_fsv16


@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.byxf])
def test_eltwise_padded_buffers(engine, rng, fmt):
    shapes = [(2, 3, 4, 5), (3, 1, 5)]
    arrays = eltwise_inputs(rng, shapes, E.min)
    l0 = cl.Layout(cl.DataType.f32, fmt, shapes[0], cl.Padding((1, 0, 2, 1), (0, 2, 1, 3)))
    l1 = cl.Layout(cl.DataType.f32, cl.Format.yxfb, shapes[1], cl.Padding((1, 2, 0, 1), (2, 0, 1, 0)))
    prim = cl.Eltwise("elt", ["a", "b"], mode=E.min)
    lout = prim.calc_output_layout([l0, l1]).with_(padding=cl.Padding((0, 1, 1, 2), (1, 1, 0, 1)))
    out = run_kernel_padded(engine, "eltwise", [l0, l1], lout, prim.attrs(), arrays)
    assert_close(out, eltwise_ref(arrays, E.min))


def test_eltwise_pow_negative_base(engine, rng):
    """A negative base with integral exponents (C99 pow: defined, sign from the parity) and a non-integral one."""
    x = f32(rng.uniform(-3.0, 3.0, (2, 3, 4)))
    e = f32(rng.integers(-3, 4, (3, 4)))
    e[0, 0] = 0.5
    out = run_single(engine, cl.Eltwise("elt", ["x", "e"], mode=E.pow), {"x": x, "e": e})
    with np.errstate(invalid="ignore"):
        ref = eltwise_ref([x, e], E.pow)
    assert np.isnan(out[:, 0, 0][x[:, 0, 0] < 0]).all()
    mask = np.ones(ref.shape, bool)
    mask[:, 0, 0] = False
    np.testing.assert_allclose(out[mask], ref[mask], rtol=1e-5, atol=1e-6)


def int_ref(arrays, mode):
    """numpy int64 reference with C semantics: div truncates toward zero; pow by Python integers."""
    xs = [a.astype(np.int64) for a in arrays]

    def step(acc, v):
        if mode == E.div:
            q = np.abs(acc) // np.abs(v)
            return np.where((acc < 0) != (v < 0), -q, q)
        if mode == E.fmod:
            return np.fmod(acc, v)
        if mode == E.pow:
            return np.vectorize(lambda p, q: p ** q if q >= 0 else int(1 / p ** -q) if p else 0)(acc, v)
        return ELTWISE_OPS[mode](acc, v)

    return functools.reduce(step, xs)


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("mode", list(E), ids=lambda m: m.value)
def test_eltwise_int32(engine, rng, mode):
    """All-i32 inputs compute in int: exact beyond float's 24 bits, div truncating toward zero."""
    shapes = [(2, 3, 4, 5), (3, 1, 5)]
    if mode == E.pow:
        a = rng.integers(-6, 7, shapes[0])
        b = rng.integers(-2, 9, shapes[1])
    elif mode in (E.div, E.fmod, E.mod):
        a = rng.integers(-10**9, 10**9, shapes[0])
        b = rng.integers(1, 1000, shapes[1]) * rng.choice([-1, 1], shapes[1])
    elif mode in COMPARISONS:
        a = rng.integers(-10**8, 10**8 + 4, shapes[0]) // 10**8 * 10**8 + 1  # few values: ties are common
        b = rng.integers(-1, 2, shapes[1]) * 10**8 + 1
    elif mode in (E.mask, E.mask_not):
        a = rng.integers(-10**9, 10**9, shapes[0])   # beyond float32's exact integers
        b = rng.integers(-1, 2, shapes[1])
    else:
        a = rng.integers(-10**8, 10**8, shapes[0])   # beyond float32's exact integers
        b = (rng.integers(-20, 21, shapes[1]) if mode in (E.prod, E.prelu)
             else rng.integers(-10**8, 10**8, shapes[1]))
    arrays = [a.astype(np.int32), b.astype(np.int32)]
    out = run_single(engine, cl.Eltwise("elt", ["a", "b"], mode=mode), {"a": arrays[0], "b": arrays[1]},
                     fmt=cl.Format.byxf, out_fmt=cl.Format.bfyx)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.astype(np.int64), int_ref(arrays, mode))


def test_eltwise_int32_div_by_zero_does_not_trap(engine):
    a = np.array([7, -7, 5, -2147483648], np.int32)
    b = np.array([0, 2, -1, -1], np.int32)
    out = run_single(engine, cl.Eltwise("elt", ["a", "b"], mode=E.div), {"a": a, "b": b})
    np.testing.assert_array_equal(out[:3], [0, -3, -5])


def test_eltwise_pow_mixed_dtypes(engine, rng):
    """pow: an f32 base with an i32 exponent gives f32; an i32 base with an f32 exponent gives i32 (truncated
    toward zero as ONNX casts the power; exact integer powers stay exact)."""
    x = f32(rng.uniform(-3.0, 3.0, (3, 4)))
    e = rng.integers(-3, 4, (4,)).astype(np.int32)
    out = run_single(engine, cl.Eltwise("elt", ["x", "e"], mode=E.pow), {"x": x, "e": e})
    assert out.dtype == np.float32
    assert_close(out, np.power(x.astype(np.float64), e.astype(np.float64)))
    xi = rng.integers(-6, 7, (3, 4)).astype(np.int32)
    ef = f32(rng.uniform(0.0, 3.0, (3, 4)))
    ef[0] = [6.0, 5.0, 3.0, 2.0]                       # integral exponents: exact integer powers
    xi[0] = [3, -3, 7, -5]
    out = run_single(engine, cl.Eltwise("elt", ["xi", "ef"], mode=E.pow), {"xi": xi, "ef": ef})
    assert out.dtype == np.int32
    with np.errstate(invalid="ignore"):
        ref = np.power(xi.astype(np.float64), ef.astype(np.float64))
    ok = ~np.isnan(ref)                                 # negative base, fractional exponent: NaN → unspecified
    np.testing.assert_array_equal(out[ok], np.trunc(ref[ok]))
    np.testing.assert_array_equal(out[0], [729, -243, 343, 25])


def test_eltwise_dtype_rules():
    """Only pow's exponents may differ in type from the base; the output has the base's type."""
    f, i = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 3)), cl.Layout(cl.DataType.i32, cl.Format.bfyx, (3,))
    assert cl.Eltwise("p", ["a", "b"], mode=E.pow).calc_output_layout([i, f]).dtype == cl.DataType.i32
    assert cl.Eltwise("p", ["a", "b"], mode=E.pow).calc_output_layout([f, i]).dtype == cl.DataType.f32
    with pytest.raises(cl.ShapeError, match="input data types"):
        cl.Eltwise("p", ["a", "b"], mode=E.prelu).calc_output_layout([f, i])


@pytest.mark.parametrize("shapes", [[(2, 3, 2, 2, 3)] * 2, [(1, 2, 3, 2, 2, 3), (1,), (1, 2, 3, 2, 2, 3)],
                                    [(1, 1, 1, 1, 1), (2, 3, 2, 2, 3)]], ids=["same5", "scalar6", "scalar5"])
def test_eltwise_rank5_6(engine, rng, shapes):
    """Rank 5-6 outputs: inputs of the output's shape or one element."""
    arrays = eltwise_inputs(rng, shapes, E.sub)
    names = [f"in{i}" for i in range(len(shapes))]
    out = run_single(engine, cl.Eltwise("elt", names, mode=E.sub), dict(zip(names, arrays)))
    assert_close(out, eltwise_ref(arrays, E.sub))


def test_eltwise_rank5_broadcast_rejected():
    lay = [cl.Layout(cl.DataType.f32, cl.Format.bfyx, s) for s in [(2, 3, 2, 2, 3), (2, 1, 1)]]
    with pytest.raises(cl.ShapeError, match="rank > 4"):
        cl.Eltwise("e", ["a", "b"]).calc_output_layout(lay)
