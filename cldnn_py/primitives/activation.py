"""Activation: an element-wise function with up to two parameters a, b (clDNN ``activation``)."""

from __future__ import annotations

from dataclasses import dataclass

from ..layout import Layout
from ..ops.activation import DEFAULTS, ActivationAttrs, ActivationFunc
from .base import Primitive, one_input


@dataclass(frozen=True)
class Activation(Primitive, type_name="activation", attrs=ActivationAttrs):
    """y = func(x; a, b) element-wise; output has the input's layout (any format, any shape).

    ``a``/``b`` left as None take the function's default: swish a=1; elu a=1; hard_sigmoid a=0.2, b=0.5 (ONNX);
    clamp a=0, b=6; linear a=1, b=0; relu_negative_slope a=0.01 (ONNX LeakyRelu); selu a=1.6732632, b=1.0507010
    (ONNX); 0 otherwise.
    """

    input: str = ""
    func: ActivationFunc | str = ActivationFunc.relu
    a: float | None = None
    b: float | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        self.enum_field("func", ActivationFunc)
        da, db = DEFAULTS.get(ActivationFunc(self.func).value, (0.0, 0.0))
        object.__setattr__(self, "a", float(da if self.a is None else self.a))
        object.__setattr__(self, "b", float(db if self.b is None else self.b))

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """The input's layout without padding."""
        x = one_input(self, inputs)
        return Layout(x.dtype, x.format, x.shape)
