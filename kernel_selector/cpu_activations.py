"""numpy forms of every activation function, for the CPU engine's kernels and fused ops.

The same functions, parameters and edge cases as the OpenCL bodies in :mod:`kernel_selector.activation_functions`
(ONNX operator definitions; relu maps NaN to 0 like ``x > 0 ? x : 0``; clamp and hard_sigmoid use fmin/fmax, which
ignore a NaN operand as C does; expm1/log1p/erfc where the plain form cancels). Computed in the input's float type.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import special

Fn = Callable[[np.ndarray, float, float], np.ndarray]

NP_ACTIVATIONS: dict[str, Fn] = {
    "relu": lambda x, a, b: np.where(x > 0, x, 0),
    "relu_negative_slope": lambda x, a, b: np.where(x >= 0, x, a * x),
    "clamp": lambda x, a, b: np.fmin(np.fmax(x, a), b),
    "logistic": lambda x, a, b: 1 / (1 + np.exp(-x)),
    "tanh": lambda x, a, b: np.tanh(x),
    "elu": lambda x, a, b: np.where(x >= 0, x, a * np.expm1(x)),
    "abs": lambda x, a, b: np.abs(x),
    "exp": lambda x, a, b: np.exp(x),
    "log": lambda x, a, b: np.log(x),
    "sqrt": lambda x, a, b: np.sqrt(x),
    "square": lambda x, a, b: x * x,
    "softplus": lambda x, a, b: np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20)))),
    "hard_sigmoid": lambda x, a, b: np.fmax(0, np.fmin(1, a * x + b)),
    "hard_swish": lambda x, a, b: x * np.fmin(np.fmax(x + 3, 0), 6) / 6,
    "swish": lambda x, a, b: x / (1 + np.exp(-a * x)),
    "gelu": lambda x, a, b: 0.5 * x * special.erfc(-x * 0.7071067811865476),
    "gelu_tanh": lambda x, a, b: x / (1 + np.exp(-1.5957691216057308 * (x + 0.044715 * x * x * x))),
    "linear": lambda x, a, b: a * x + b,
    "neg": lambda x, a, b: -x,
    "reciprocal": lambda x, a, b: 1 / x,
    "erf": lambda x, a, b: special.erf(x),
    "selu": lambda x, a, b: np.where(x > 0, b * x, b * a * np.expm1(x)),
}


def activation(x: np.ndarray, func: str, a: float = 0.0, b: float = 0.0) -> np.ndarray:
    """``func(x; a, b)`` element-wise, in x's float type (a and b cast to it). Raises KeyError for an unknown func."""
    dt = x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)
    with np.errstate(all="ignore"):
        return np.asarray(NP_ACTIVATIONS[func](x.astype(dt, copy=False), dt.type(a), dt.type(b)), dtype=dt)
