"""activation vs float64 numpy references: every ActivationFunc with its parameters a/b, several formats.

All functions of one format run in one Program (one input per value range, one Activation per case), so the whole
list costs one batched build per format; a failure names every mismatching case.
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.ops.elementwise import ACTIVATIONS
from tests.helpers import f32, run_topology
from tests.ocl.padded import run_kernel_padded
from tests.references import ACTIVATION_REFS

AF = cl.ActivationFunc
# func -> float64 reference f(x, a, b) (tests/references.py)
REFS = {f: ACTIVATION_REFS[f.value] for f in AF if f.value in ACTIVATION_REFS}
# value ranges (name -> generator of a float32 array of the test shape)
RANGES = {
    "wide": lambda rng, s: rng.standard_normal(s) * 4,               # both signs, crosses 0, ±3 kinks
    "exp": lambda rng, s: rng.uniform(-8.0, 8.0, s),                 # exp stays well inside float32
    "pos": lambda rng, s: rng.uniform(1e-3, 20.0, s),                # log, sqrt: domain x > 0
    "tails": lambda rng, s: rng.uniform(-30.0, 30.0, s),             # softplus: both branches, tiny results
    "small": lambda rng, s: rng.uniform(-1.0, 1.0, s) * 10.0 ** rng.uniform(-6, 0, s),  # near 0 (elu's expm1)
}

# func, a, b, range, (rtol, atol)
CASES = [
    (AF.relu, 0.0, 0.0, "wide", None),
    (AF.relu_negative_slope, 0.1, 0.0, "wide", None),
    (AF.relu_negative_slope, -1.5, 0.0, "wide", None),
    (AF.clamp, -1.0, 1.5, "wide", None),
    (AF.clamp, 0.0, 6.0, "wide", None),                       # relu6
    (AF.logistic, 0.0, 0.0, "wide", None),
    (AF.logistic, 0.0, 0.0, "tails", None),
    (AF.tanh, 0.0, 0.0, "wide", None),
    (AF.elu, 1.0, 0.0, "wide", None),
    (AF.elu, 0.4, 0.0, "small", (1e-5, 0.0)),                 # relative accuracy near 0
    (AF.abs, 0.0, 0.0, "wide", None),
    (AF.exp, 0.0, 0.0, "exp", (1e-5, 0.0)),
    (AF.log, 0.0, 0.0, "pos", None),
    (AF.sqrt, 0.0, 0.0, "pos", None),
    (AF.square, 0.0, 0.0, "wide", None),
    (AF.softplus, 0.0, 0.0, "wide", None),
    (AF.softplus, 0.0, 0.0, "tails", (1e-5, 0.0)),           # relative accuracy of tiny values for x << 0
    (AF.hard_sigmoid, 0.2, 0.5, "wide", None),                # ONNX defaults
    (AF.hard_sigmoid, 1.0 / 6.0, 0.5, "wide", None),
    (AF.hard_swish, 0.0, 0.0, "wide", None),
    (AF.swish, 1.0, 0.0, "wide", None),
    (AF.swish, 1.702, 0.0, "tails", None),
    (AF.gelu, 0.0, 0.0, "wide", None),
    (AF.gelu, 0.0, 0.0, "tails", (1e-4, 1e-30)),             # tiny results for x << 0 stay accurate
    (AF.gelu_tanh, 0.0, 0.0, "wide", None),
    (AF.gelu_tanh, 0.0, 0.0, "small", (1e-5, 0.0)),
    (AF.linear, 2.5, -0.75, "wide", None),
    (AF.linear, -0.3, 4.0, "wide", None),
    (AF.neg, 0.0, 0.0, "wide", (0.0, 0.0)),                   # exact
    (AF.reciprocal, 0.0, 0.0, "wide", None),
    (AF.reciprocal, 0.0, 0.0, "small", None),                 # huge results
    (AF.erf, 0.0, 0.0, "wide", None),
    (AF.erf, 0.0, 0.0, "small", (1e-5, 0.0)),                 # relative accuracy near 0
    (AF.selu, 1.6732632423543772, 1.0507009873554805, "wide", None),
    (AF.selu, 2.0, 0.5, "small", (1e-5, 0.0)),                # expm1 near 0
]
DEFAULT_TOL = (1e-5, 1e-6)


def test_every_function_is_covered():
    """Each ActivationFunc has a kernel formula, a numpy reference and at least one case here."""
    names = {f.value for f in AF}
    assert names == set(ACTIVATIONS)
    assert set(REFS) == set(AF)
    assert {c[0] for c in CASES} == set(AF)


@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16, cl.Format.byxf, cl.Format.yxfb])
def test_activation_matches_reference(engine, rng, fmt):
    shape = (2, 19, 3, 4)
    feeds = {name: f32(gen(rng, shape)) for name, gen in RANGES.items()}
    topo = cl.Topology()
    for name in RANGES:
        topo.add(cl.InputLayout(name, cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape)))
        topo.add(cl.Reorder(f"{name}_{fmt.value}", name, fmt))
    for i, (func, a, b, rng_name, _) in enumerate(CASES):
        topo.add(cl.Activation(f"act{i}", f"{rng_name}_{fmt.value}", func=func, a=a, b=b))
    outs = run_topology(engine, topo, feeds)
    failures = []
    for i, (func, a, b, rng_name, tol) in enumerate(CASES):
        out = outs[f"act{i}"]
        rtol, atol = tol or DEFAULT_TOL
        x = feeds[rng_name].astype(np.float64)
        ref = REFS[func](x, a, b)
        assert out.shape == shape and out.dtype == np.float32
        bad = ~np.isclose(out.astype(np.float64), ref, rtol=rtol, atol=atol)
        if bad.any():
            j = np.flatnonzero(bad)[0]
            failures.append(f"{func.value}(a={a}, b={b}) on '{rng_name}': {bad.sum()} of {bad.size} mismatch, "
                            f"e.g. x={x.flat[j]!r}: got {out.flat[j]!r}, expected {ref.flat[j]!r}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("func", [AF.gelu, AF.clamp])
def test_activation_padded_buffers(engine, rng, func):
    """Padded input and output (b_fs_yx_fsv16 in, padded bfyx out): only the interior is read and written."""
    shape = (1, 19, 3, 4)
    lin = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((0, 0, 1, 2), (1, 0, 2, 0)))
    lout = cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape, cl.Padding((1, 2, 0, 1), (0, 3, 1, 1)))
    x = f32(rng.standard_normal(shape) * 3)
    a, b = -0.5, 1.25
    out = run_kernel_padded(engine, "activation", [lin], lout, {"func": func, "a": a, "b": b}, [x])
    np.testing.assert_allclose(out, REFS[func](x.astype(np.float64), a, b), rtol=1e-5, atol=1e-6)
