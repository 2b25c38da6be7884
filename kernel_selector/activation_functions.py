"""OpenCL C bodies of every activation function, shared by the activation kernel and fused ops.

Each entry maps a function name (``cldnn_py.ActivationFunc`` values) to a function-like macro body in the macro
argument ``x`` and the parameters ``A``/``B``. Formulas follow ONNX operator definitions (Relu, LeakyRelu, Clip,
Sigmoid, Tanh, Elu, Selu, Softplus, HardSigmoid, HardSwish, Gelu, Erf, Neg, Reciprocal) and clDNN's
activation_func list. Forms are chosen to keep tiny results accurate in float (conformance tests compare with
rtol 1e-3 and atol 1e-7): expm1 rather than exp - 1, log1p rather than log(1 + ...), erfc rather than 1 + erf, and
the tanh-approximated Gelu as x * sigmoid(2z) rather than 0.5x(1 + tanh z), which cancels for x << 0.
"""

from __future__ import annotations

FORMULAS: dict[str, str] = {
    "relu": "((x) > 0.0f ? (x) : 0.0f)",  # not fmax: a call on the pip PoCL; same values, NaN -> 0 included
    "relu_negative_slope": "((x) >= 0.0f ? (x) : A * (x))",
    "clamp": "fmin(fmax((x), A), B)",
    "logistic": "(1.0f / (1.0f + exp(-(x))))",
    "tanh": "tanh(x)",
    "elu": "((x) >= 0.0f ? (x) : A * expm1(x))",  # expm1: exp(x) - 1 loses all digits near 0
    "abs": "fabs(x)",
    "exp": "exp(x)",
    "log": "log(x)",
    "sqrt": "sqrt(x)",
    "square": "((x) * (x))",
    "softplus": "((x) > 20.0f ? (x) : log1p(exp(x)))",  # log1p: 1 + exp(x) rounds to 1 for x << 0
    "hard_sigmoid": "fmax(0.0f, fmin(1.0f, A * (x) + B))",
    "hard_swish": "((x) * fmin(fmax((x) + 3.0f, 0.0f), 6.0f) / 6.0f)",
    "swish": "((x) / (1.0f + exp(-A * (x))))",
    # 0.5x(1 + erf(x/sqrt2)) = 0.5x erfc(-x/sqrt2): no cancellation for x << 0
    "gelu": "(0.5f * (x) * erfc(-(x) * 0.7071067811865476f))",
    # ONNX Gelu approximate="tanh": 0.5x(1 + tanh z), z = sqrt(2/pi)(x + 0.044715x^3), = x / (1 + exp(-2z))
    "gelu_tanh": "((x) / (1.0f + exp(-1.5957691216057308f * ((x) + 0.044715f * (x) * (x) * (x)))))",
    "linear": "(A * (x) + B)",
    "neg": "(-(x))",
    "reciprocal": "(1.0f / (x))",
    "erf": "erf(x)",
    # ONNX Selu: gamma * x for x > 0, gamma * alpha * (exp(x) - 1) otherwise (a = alpha, b = gamma)
    "selu": "((x) > 0.0f ? B * (x) : B * A * expm1(x))",
}


def float_literal(v: float) -> str:
    """A float as a parenthesized OpenCL C literal (``(1e-05f)``, ``INFINITY``, ``NAN``)."""
    v = float(v)
    if v != v:
        return "NAN"
    if v in (float("inf"), float("-inf")):
        return "INFINITY" if v > 0 else "(-INFINITY)"
    r = repr(v)
    return f"({r}f)" if ("e" in r or "." in r) else f"({r}.0f)"


def macro_body(func: str, a: float, b: float) -> str:
    """Body of a function-like macro of ``x`` computing ``func`` with parameters a, b substituted."""
    body = FORMULAS[func]
    return "(" + body.replace("A", float_literal(a)).replace("B", float_literal(b)) + ")"
