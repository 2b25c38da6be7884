"""eltwise vs a float64 numpy reference: every mode folded left to right over 2-4 inputs, sum coefficients, numpy
broadcasting across ranks, formats (the output takes the first full-shape input's format), padded buffers."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_kernel_padded

E = cl.EltwiseMode
NP_OP = {E.sum: np.add, E.sub: np.subtract, E.prod: np.multiply, E.div: np.divide, E.max: np.maximum,
         E.min: np.minimum}


def eltwise_ref(arrays, mode, coefficients=None):
    """numpy's own broadcasting in float64, reduced left to right."""
    xs = [a.astype(np.float64) for a in arrays]
    if coefficients is not None:
        xs = [c * a for c, a in zip(coefficients, xs)]
    return functools.reduce(NP_OP[mode], xs)


def make_inputs(rng, shapes, mode):
    """Random inputs; divisors kept away from zero (|v| in [0.5, 2], random sign)."""
    out = []
    for i, s in enumerate(shapes):
        if mode == E.div and i > 0:
            a = rng.uniform(0.5, 2.0, s) * rng.choice([-1.0, 1.0], s)
        else:
            a = rng.standard_normal(s)
        out.append(f32(a))
    return out


@pytest.mark.parametrize("mode", list(E), ids=lambda m: m.value)
@pytest.mark.parametrize("n_inputs", [2, 3])
def test_eltwise_modes_same_shape(engine, rng, mode, n_inputs):
    shapes = [(2, 5, 3, 4)] * n_inputs
    arrays = make_inputs(rng, shapes, mode)
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


@pytest.mark.parametrize("shapes", BCAST, ids=lambda s: "+".join("x".join(map(str, t)) for t in s))
@pytest.mark.parametrize("mode", [E.sub, E.div, E.max])
def test_eltwise_broadcast(engine, rng, shapes, mode):
    arrays = make_inputs(rng, shapes, mode)
    names = [f"in{i}" for i in range(len(shapes))]
    out = run_single(engine, cl.Eltwise("elt", names, mode=mode), dict(zip(names, arrays)))
    assert_close(out, eltwise_ref(arrays, mode))


@pytest.mark.parametrize("shapes", [[(2, 3, 2, 2)] * 3, [(1, 3, 1, 1), (2, 3, 4, 5), (5,)]], ids=["same", "bcast"])
def test_eltwise_sum_coefficients(engine, rng, shapes):
    arrays = make_inputs(rng, shapes, E.sum)
    coeffs = [float(c) for c in rng.uniform(-2, 2, len(shapes))]
    names = [f"in{i}" for i in range(len(shapes))]
    out = run_single(engine, cl.Eltwise("elt", names, mode=E.sum, coefficients=coeffs), dict(zip(names, arrays)))
    assert_close(out, eltwise_ref(arrays, E.sum, coeffs))


@pytest.mark.parametrize("fmt", [cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
@pytest.mark.parametrize("shapes", [[(2, 18, 3, 4)] * 2, [(1, 18, 1, 1), (2, 18, 3, 4), (4,)]], ids=["same", "bcast"])
def test_eltwise_formats(engine, rng, fmt, shapes):
    """Every input in ``fmt``; the output takes the format of the first full-shape input."""
    arrays = make_inputs(rng, shapes, E.prod)
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
    arrays = make_inputs(rng, shapes, E.min)
    l0 = cl.Layout(cl.DataType.f32, fmt, shapes[0], cl.Padding((1, 0, 2, 1), (0, 2, 1, 3)))
    l1 = cl.Layout(cl.DataType.f32, cl.Format.yxfb, shapes[1], cl.Padding((1, 2, 0, 1), (2, 0, 1, 0)))
    prim = cl.Eltwise("elt", ["a", "b"], mode=E.min)
    lout = prim.calc_output_layout([l0, l1]).with_(padding=cl.Padding((0, 1, 1, 2), (1, 1, 0, 1)))
    out = run_kernel_padded(engine, "eltwise", [l0, l1], lout, prim.attrs(), arrays)
    assert_close(out, eltwise_ref(arrays, E.min))
