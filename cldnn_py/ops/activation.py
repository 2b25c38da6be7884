"""Activation functions: the enum, their parameter defaults, and the typed attributes (clDNN ``activation_params``)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .base import OpAttrs
from .elementwise import ACTIVATION_DEFAULTS


class ActivationFunc(str, enum.Enum):
    """Functions and their parameters (a, b); formulas, codes and defaults in the element-wise table
    (:mod:`cldnn_py.ops.elementwise`).

    relu; relu_negative_slope (a = slope); clamp (a = min, b = max); logistic; tanh; elu (a = alpha); abs; exp;
    log; sqrt; square; softplus; hard_sigmoid (a = alpha, b = beta: max(0, min(1, a*x + b))); hard_swish
    (x * relu6(x + 3) / 6); swish (x * sigmoid(a*x), a defaults to 1); gelu (erf form); gelu_tanh (ONNX Gelu
    approximate="tanh"); linear (a*x + b); neg (-x); reciprocal (1/x); erf; selu (a = alpha, b = gamma: ONNX Selu,
    defaults 1.67326..., 1.05070...); floor; ceil; round (halves to even); sign (0 and NaN kept).
    """

    relu = "relu"
    relu_negative_slope = "relu_negative_slope"
    clamp = "clamp"
    logistic = "logistic"
    tanh = "tanh"
    elu = "elu"
    abs = "abs"
    exp = "exp"
    log = "log"
    sqrt = "sqrt"
    square = "square"
    softplus = "softplus"
    hard_sigmoid = "hard_sigmoid"
    hard_swish = "hard_swish"
    swish = "swish"
    gelu = "gelu"
    linear = "linear"
    gelu_tanh = "gelu_tanh"
    neg = "neg"
    reciprocal = "reciprocal"
    erf = "erf"
    selu = "selu"
    floor = "floor"
    ceil = "ceil"
    round = "round"
    sign = "sign"


DEFAULTS: dict[str, tuple[float, float]] = ACTIVATION_DEFAULTS  # the element-wise table's


@dataclass(frozen=True)
class ActivationAttrs(OpAttrs):
    """y = func(x; a, b) element-wise; ``a``/``b`` already resolved to the function's defaults (:data:`DEFAULTS`)."""

    func: ActivationFunc = ActivationFunc.relu
    a: float = 0.0
    b: float = 0.0


@dataclass(frozen=True)
class FusedActivationAttrs(OpAttrs):
    """An activation folded into a producer's epilogue (prepare_primitive_fusing): ``func`` is the
    :class:`ActivationFunc` value (a str); ``a``/``b`` its parameters (already resolved to the function's
    defaults by the primitive)."""

    func: str = "relu"
    a: float = 0.0
    b: float = 0.0
