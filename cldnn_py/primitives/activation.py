"""Activation: an element-wise function with up to two parameters a, b (clDNN ``activation``)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar

from ..errors import TopologyError
from ..layout import Layout
from .base import Primitive, one_input


class ActivationFunc(str, enum.Enum):
    """Functions and their parameters (a, b); formulas in kernel_selector/activation_functions.py.

    relu; relu_negative_slope (a = slope); clamp (a = min, b = max); logistic; tanh; elu (a = alpha); abs; exp;
    log; sqrt; square; softplus; hard_sigmoid (a = alpha, b = beta: max(0, min(1, a*x + b))); hard_swish
    (x * relu6(x + 3) / 6); swish (x * sigmoid(a*x), a defaults to 1); gelu (erf form); gelu_tanh (ONNX Gelu
    approximate="tanh"); linear (a*x + b); neg (-x); reciprocal (1/x); erf; selu (a = alpha, b = gamma: ONNX Selu,
    defaults 1.67326..., 1.05070...).
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


DEFAULTS: dict[str, tuple[float, float]] = {
    "swish": (1.0, 0.0), "elu": (1.0, 0.0), "hard_sigmoid": (0.2, 0.5), "clamp": (0.0, 6.0), "linear": (1.0, 0.0),
    "relu_negative_slope": (0.01, 0.0),
    # ONNX Selu defaults (float32 values of the opset-6 attributes)
    "selu": (1.67326319217681884765625, 1.05070102214813232421875),
}


@dataclass(frozen=True)
class Activation(Primitive):
    """y = func(x; a, b) element-wise; output has the input's layout (any format, any shape).

    ``a``/``b`` left as None take the function's default: swish a=1; elu a=1; hard_sigmoid a=0.2, b=0.5 (ONNX);
    clamp a=0, b=6; linear a=1, b=0; relu_negative_slope a=0.01 (ONNX LeakyRelu); selu a=1.6732632, b=1.0507010
    (ONNX); 0 otherwise.
    """

    input: str = ""
    func: ActivationFunc | str = ActivationFunc.relu
    a: float | None = None
    b: float | None = None
    type_name: ClassVar[str] = "activation"

    def __post_init__(self) -> None:
        super().__post_init__()
        try:
            object.__setattr__(self, "func", ActivationFunc(self.func))
        except ValueError:
            raise TopologyError(f"activation '{self.id}': func must be one of "
                                f"{[f.value for f in ActivationFunc]}, got {self.func!r}") from None
        da, db = DEFAULTS.get(ActivationFunc(self.func).value, (0.0, 0.0))
        object.__setattr__(self, "a", float(da if self.a is None else self.a))
        object.__setattr__(self, "b", float(db if self.b is None else self.b))

    def dependencies(self) -> list[str]:
        """[input]."""
        return [self.input]

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """The input's layout without padding."""
        x = one_input(self, inputs)
        return Layout(x.dtype, x.format, x.shape)
