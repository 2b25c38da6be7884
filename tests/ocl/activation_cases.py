"""The activation test cases shared by tests/ocl/test_activation.py and test_activation_gpu.py (a test module
never imports another test module)."""

from __future__ import annotations

import cldnn_py as cl
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
    "halves": lambda rng, s: rng.integers(-16, 17, s) * 0.5 + rng.choice([0.0, 0.0, 0.1, -0.1], s),  # rounding ties
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
    (AF.floor, 0.0, 0.0, "halves", (0.0, 0.0)),              # exact, integers and halves
    (AF.ceil, 0.0, 0.0, "halves", (0.0, 0.0)),
    (AF.round, 0.0, 0.0, "halves", (0.0, 0.0)),               # halves to even
    (AF.sign, 0.0, 0.0, "halves", (0.0, 0.0)),                # zeros included
]


DEFAULT_TOL = (1e-5, 1e-6)
