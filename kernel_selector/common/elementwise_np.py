"""The numpy renderer of the element-wise table (:mod:`cldnn_py.ops.elementwise`): every activation and eltwise
mode as a numpy function, computed in the input's float type (float32 stays float32: the Python-float constants of
the formulas are weak scalars). The CPU engine's reference kernels and the numpy fused-op epilogue use it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from cldnn_py.ops.elementwise import ACTIVATIONS, ELTWISE, parse, py_expr

Fn = Callable[[np.ndarray, Any, Any], np.ndarray]
Op = Callable[[np.ndarray, np.ndarray], np.ndarray]

_NS: dict[str, Any] = {
    "where": np.where, "fmin": np.fmin, "fmax": np.fmax, "exp": np.exp, "expm1": np.expm1, "log": np.log,
    "log1p": np.log1p, "sqrt": np.sqrt, "tanh": np.tanh, "fabs": np.abs, "erf": special.erf, "erfc": special.erfc,
    "pow": np.power, "floor": np.floor, "ceil": np.ceil, "rint": np.rint, "fmod": np.fmod,
}
# infix modes as ufuncs (``out=`` works); the others from their formula
_UFUNCS: dict[str, Op] = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}


def _compile(args: str, body: str) -> Any:
    return eval(f"lambda {args}: {body}", dict(_NS))  # noqa: S307 - formulas of the fixed table only


NP_ACTIVATIONS: dict[str, Fn] = {
    name: _compile("x, a, b", py_expr(parse(d.formula), {"A": "a", "B": "b"}, "where"))
    for name, d in ACTIVATIONS.items()
}


def _eltwise(formula: str) -> Op:
    tree = parse(formula)
    if tree[0] == "bin" and tree[2:] == (("var", "a"), ("var", "b")):
        return _UFUNCS[tree[1]]
    if tree[0] == "call" and tree[1] in _NS:
        return _NS[tree[1]]
    return _compile("a, b", py_expr(tree, {}, "where"))


NP_ELTWISE: dict[str, Op] = {name: _eltwise(d.formula) for name, d in ELTWISE.items()}


def activation(x: np.ndarray, func: str, a: float = 0.0, b: float = 0.0) -> np.ndarray:
    """``func(x; a, b)`` element-wise, in x's float type (a and b cast to it). Raises KeyError for an unknown func."""
    dt = x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)
    with np.errstate(all="ignore"):
        return np.asarray(NP_ACTIVATIONS[func](x.astype(dt, copy=False), dt.type(a), dt.type(b)), dtype=dt)
